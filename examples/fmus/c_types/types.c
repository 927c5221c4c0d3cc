/* Every FMI 3.0 variable type in one co-simulation module in plain C (the test FMU of
 * binary modules' typed ports):
 *
 *   count  (Int32)   time events so far: one every `period` seconds, handled in fmi3DoStep
 *   odd    (Boolean) flag && count is odd
 *   y      (Float64) gain * u + offset
 *   arr[i] (Float64, length n = structural parameter) weights[i] * time, the weights read
 *                    at instantiation from <resourcePath>config.txt with fopen
 *   small  (UInt8)   u8 + count, wrapping at 256
 *   f32    (Float32) gain * (float)time
 *   param_sum (Int64) offset + i16 + u8 + u16 + u32 + i64 + flag + mode + strlen(label) + size(blob)
 *   big    (UInt64)  u64 + count
 *   mode_out (Enumeration) mode
 *   in_sum (Float64) arr_in[0] + arr_in[1] + arr_in[2]
 *   k_echo (Int32)   k_in as it was when the last step began
 *
 * Built like c_table (cargo xtask fmus), packaged with resources/config.txt. Value
 * references as in modelDescription.xml beside this file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c_spring_damper/fmi3_types.h"

typedef float fmi3Float32;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

enum { MAX_N = 3, BLOB_MAX = 256, LABEL_MAX = 256 };

enum {
    VR_TIME = 0, VR_U = 1, VR_K_IN = 2, VR_ARR_IN = 3,
    VR_GAIN = 10, VR_OFFSET, VR_I16, VR_U8, VR_U16, VR_U32, VR_I64, VR_U64, VR_FLAG, VR_LABEL, VR_BLOB,
    VR_MODE, VR_N, VR_PERIOD,
    VR_COUNT = 30, VR_ODD, VR_Y, VR_ARR, VR_SMALL, VR_F32, VR_PARAM_SUM, VR_BIG, VR_MODE_OUT, VR_IN_SUM,
    VR_K_ECHO
};

typedef struct {
    double time, u, arr_in[3], period, y, arr[MAX_N], in_sum;
    int32_t k_in, count, k_echo;
    float gain, f32;
    int8_t offset;
    int16_t i16;
    uint8_t u8, small;
    uint16_t u16;
    uint32_t u32;
    int64_t i64, mode, param_sum, mode_out;
    uint64_t u64, n, big;
    bool flag, odd;
    char label[LABEL_MAX];
    uint8_t blob[BLOB_MAX];
    size_t blob_size;
} Values;

typedef struct {
    Values v;
    double weights[MAX_N];
    double next_event;
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment env;
} Instance;

static void report(const Instance *m, fmi3LogMessageCallback log, fmi3InstanceEnvironment env, const char *message) {
    (void)m;
    if (log) log(env, fmi3Error, "logStatusError", message);
    fprintf(stderr, "c_types: %s\n", message);
}

static void start_values(Values *v) {
    memset(v, 0, sizeof *v);
    v->gain = 2.5f;
    v->offset = -3;
    v->i16 = -300;
    v->u8 = 250;
    v->u16 = 60000;
    v->u32 = 4000000000u;
    v->i64 = -5000000000LL;
    v->u64 = 1099511627776ULL;
    v->flag = true;
    strcpy(v->label, "types");
    v->blob[0] = 0x0a; v->blob[1] = 0x0b; v->blob[2] = 0x0c;
    v->blob_size = 3;
    v->mode = 2;
    v->n = MAX_N;
    v->period = 0.25;
}

/* The outputs that follow from the values (not the event counter or k_echo). */
static void update(Instance *m) {
    Values *v = &m->v;
    v->odd = v->flag && (v->count % 2 != 0);
    v->y = (double)v->gain * v->u + v->offset;
    for (uint64_t i = 0; i < v->n; i++) v->arr[i] = m->weights[i] * v->time;
    v->small = (uint8_t)(v->u8 + v->count);
    v->f32 = v->gain * (float)v->time;
    v->param_sum = v->offset + v->i16 + v->u8 + v->u16 + (int64_t)v->u32 + v->i64 + (v->flag ? 1 : 0) + v->mode
                   + (int64_t)strlen(v->label) + (int64_t)v->blob_size;
    v->big = v->u64 + (uint64_t)v->count;
    v->mode_out = v->mode;
    v->in_sum = v->arr_in[0] + v->arr_in[1] + v->arr_in[2];
}

static int read_weights(Instance *m, const char *resourcePath, char *why, size_t n) {
    if (!resourcePath) {
        snprintf(why, n, "no resourcePath: the FMU needs resources/config.txt");
        return -1;
    }
    char path[512];
    snprintf(path, sizeof path, "%sconfig.txt", resourcePath);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, n, "cannot open %s", path);
        return -1;
    }
    int read = fscanf(f, " weights %lf %lf %lf", &m->weights[0], &m->weights[1], &m->weights[2]);
    fclose(f);
    if (read != MAX_N) {
        snprintf(why, n, "%s: expected `weights w1 w2 w3`", path);
        return -1;
    }
    return 0;
}

FMI3_Export const char *fmi3GetVersion(void) { return "3.0"; }

FMI3_Export fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
                                         fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                         fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
                                         const fmi3ValueReference requiredIntermediateVariables[],
                                         size_t nRequiredIntermediateVariables,
                                         fmi3InstanceEnvironment instanceEnvironment,
                                         fmi3LogMessageCallback logMessage,
                                         fmi3IntermediateUpdateCallback intermediateUpdate) {
    (void)instanceName; (void)visible; (void)loggingOn; (void)eventModeUsed; (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables; (void)nRequiredIntermediateVariables; (void)intermediateUpdate;
    if (!instantiationToken || strcmp(instantiationToken, "{5b0e2c1d-7f43-4a9e-8c61-2d3f4e5a6b70}") != 0) {
        report(NULL, logMessage, instanceEnvironment, "wrong instantiationToken");
        return NULL;
    }
    Instance *m = calloc(1, sizeof(Instance));
    if (!m) return NULL;
    start_values(&m->v);
    m->log = logMessage;
    m->env = instanceEnvironment;
    char why[600];
    if (read_weights(m, resourcePath, why, sizeof why) != 0) {
        report(m, logMessage, instanceEnvironment, why);
        free(m);
        return NULL;
    }
    update(m);
    return m;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Instance *m = instance;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    m->v.time = startTime;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Instance *m = instance;
    if (!(m->v.period > 0)) {
        report(m, m->log, m->env, "period must be positive");
        return fmi3Error;
    }
    m->next_event = (m->v.count + 1) * m->v.period;
    update(m);
    return fmi3OK;
}

/* One case per variable: `X(vr, field)` copies between the instance and the caller's array. */
#define SCALAR(vr, field) case vr: if (set) m->v.field = values[k]; else values[k] = m->v.field; k++; break;
#define ACCESS(NAME, T, BODY)                                                                              \
    FMI3_Export fmi3Status fmi3Get##NAME(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,  \
                                         T values[], size_t nValues) {                                     \
        return access_##NAME(instance, vrs, nvr, values, nValues, false);                                  \
    }                                                                                                      \
    FMI3_Export fmi3Status fmi3Set##NAME(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,  \
                                         const T values[], size_t nValues) {                               \
        return access_##NAME(instance, vrs, nvr, (T *)values, nValues, true);                              \
    }
#define ACCESSOR(NAME, T, CASES)                                                                           \
    static fmi3Status access_##NAME(Instance *m, const fmi3ValueReference vrs[], size_t nvr, T values[],    \
                                    size_t nValues, bool set) {                                            \
        size_t k = 0;                                                                                      \
        for (size_t i = 0; i < nvr; i++) {                                                                 \
            if (k >= nValues) return fmi3Error;                                                            \
            switch (vrs[i]) {                                                                              \
                CASES                                                                                      \
                default:                                                                                   \
                    report(m, m->log, m->env, "fmi3Get/Set" #NAME ": unknown value reference");             \
                    return fmi3Error;                                                                      \
            }                                                                                              \
        }                                                                                                  \
        if (k != nValues) return fmi3Error;                                                                \
        if (set) update(m);                                                                                \
        return fmi3OK;                                                                                     \
    }                                                                                                      \
    ACCESS(NAME, T, _)

#define ARRAY(vr, field, len)                                                                              \
    case vr:                                                                                               \
        if (k + (len) > nValues) return fmi3Error;                                                         \
        for (size_t j = 0; j < (len); j++, k++) {                                                          \
            if (set) m->v.field[j] = values[k]; else values[k] = m->v.field[j];                            \
        }                                                                                                  \
        break;

ACCESSOR(Float64, fmi3Float64,
         SCALAR(VR_TIME, time) SCALAR(VR_U, u) ARRAY(VR_ARR_IN, arr_in, 3) SCALAR(VR_PERIOD, period)
         SCALAR(VR_Y, y) ARRAY(VR_ARR, arr, m->v.n) SCALAR(VR_IN_SUM, in_sum))
ACCESSOR(Float32, fmi3Float32, SCALAR(VR_GAIN, gain) SCALAR(VR_F32, f32))
ACCESSOR(Int8, fmi3Int8, SCALAR(VR_OFFSET, offset))
ACCESSOR(UInt8, fmi3UInt8, SCALAR(VR_U8, u8) SCALAR(VR_SMALL, small))
ACCESSOR(Int16, fmi3Int16, SCALAR(VR_I16, i16))
ACCESSOR(UInt16, fmi3UInt16, SCALAR(VR_U16, u16))
ACCESSOR(Int32, fmi3Int32, SCALAR(VR_K_IN, k_in) SCALAR(VR_COUNT, count) SCALAR(VR_K_ECHO, k_echo))
ACCESSOR(UInt32, fmi3UInt32, SCALAR(VR_U32, u32))
ACCESSOR(Int64, fmi3Int64,
         SCALAR(VR_I64, i64) SCALAR(VR_MODE, mode) SCALAR(VR_PARAM_SUM, param_sum) SCALAR(VR_MODE_OUT, mode_out))
ACCESSOR(UInt64, fmi3UInt64, SCALAR(VR_U64, u64) SCALAR(VR_N, n) SCALAR(VR_BIG, big))
ACCESSOR(Boolean, fmi3Boolean, SCALAR(VR_FLAG, flag) SCALAR(VR_ODD, odd))

FMI3_Export fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     fmi3String values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_LABEL) return fmi3Error;
        values[i] = m->v.label;
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     const fmi3String values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_LABEL || strlen(values[i]) >= LABEL_MAX) return fmi3Error;
        strcpy(m->v.label, values[i]);
    }
    update(m);
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     size_t valueSizes[], fmi3Binary values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_BLOB) return fmi3Error;
        values[i] = m->v.blob;
        valueSizes[i] = m->v.blob_size;
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     const size_t valueSizes[], const fmi3Binary values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_BLOB || valueSizes[i] > BLOB_MAX) return fmi3Error;
        memcpy(m->v.blob, values[i], valueSizes[i]);
        m->v.blob_size = valueSizes[i];
    }
    update(m);
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    Instance *m = instance;
    (void)noSetFMUStatePriorToCurrentPoint;
    double end = currentCommunicationPoint + communicationStepSize;
    m->v.k_echo = m->v.k_in;
    /* Time events inside the step (a tolerance of 1e-9 periods for the grid's rounding). */
    while (m->next_event <= end + 1e-9 * m->v.period) {
        m->v.count++;
        m->next_event = (m->v.count + 1) * m->v.period;
    }
    m->v.time = end;
    update(m);
    *eventHandlingNeeded = false;
    *terminateSimulation = false;
    *earlyReturn = false;
    *lastSuccessfulTime = end;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) {
    Instance *m = instance;
    start_values(&m->v);
    m->next_event = 0;
    update(m);
    return fmi3OK;
}
