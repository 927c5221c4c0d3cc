/* A signal from a table in the FMU's resources/ folder, as an FMI 3.0 co-simulation
 * module in plain C that reads a file with the C library's stdio:
 *
 *   y(t) = gain * (linear interpolation of resources/table.txt at t) + u
 *
 * fmi3InstantiateCoSimulation opens <resourcePath>table.txt with fopen and reads its
 * "t y" rows (times increasing, at most MAX_ROWS); before the first row and after the
 * last the table is held. Setting the parameter write_test to 1 makes
 * fmi3EnterInitializationMode try to write <resourcePath>out.txt, which the playground's
 * host refuses (binary modules may only read their resources).
 *
 * Built like c_spring_damper (cargo xtask fmus), packaged with resources/table.txt.
 * Value references as in modelDescription.xml beside this file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c_spring_damper/fmi3_types.h"

enum { VR_TIME, VR_U, VR_Y, VR_GAIN, VR_ROWS, VR_WRITE_TEST, N_VARS };
enum { MAX_ROWS = 1024 };

typedef struct {
    double v[N_VARS];
    double t[MAX_ROWS], y[MAX_ROWS];
    int rows;
    char path[512];
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment env;
} Instance;

static const double START[N_VARS] = {[VR_GAIN] = 1};

static void report(fmi3LogMessageCallback log, fmi3InstanceEnvironment env, const char *message) {
    if (log) log(env, fmi3Error, "logStatusError", message);
    fprintf(stderr, "c_table: %s\n", message);
}

static double lookup(const Instance *m, double t) {
    if (m->rows == 0) return 0;
    if (t <= m->t[0]) return m->y[0];
    for (int k = 1; k < m->rows; k++) {
        if (t <= m->t[k]) {
            double w = (t - m->t[k - 1]) / (m->t[k] - m->t[k - 1]);
            return m->y[k - 1] + w * (m->y[k] - m->y[k - 1]);
        }
    }
    return m->y[m->rows - 1];
}

static void update(Instance *m) { m->v[VR_Y] = m->v[VR_GAIN] * lookup(m, m->v[VR_TIME]) + m->v[VR_U]; }

/* Reads the table; 0 on success, else a message in `why`. */
static int read_table(Instance *m, const char *resourcePath, char *why, size_t n) {
    if (!resourcePath) {
        snprintf(why, n, "no resourcePath: the FMU needs resources/table.txt");
        return -1;
    }
    snprintf(m->path, sizeof m->path, "%stable.txt", resourcePath);
    FILE *f = fopen(m->path, "r");
    if (!f) {
        snprintf(why, n, "cannot open %s", m->path);
        return -1;
    }
    /* The file's size through fseek/ftell, as many table readers check it first. */
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    m->rows = 0;
    double t, y;
    while (m->rows < MAX_ROWS && fscanf(f, "%lf %lf", &t, &y) == 2) {
        if (m->rows > 0 && !(t > m->t[m->rows - 1])) {
            fclose(f);
            snprintf(why, n, "%s: times must increase (row %d)", m->path, m->rows + 1);
            return -1;
        }
        m->t[m->rows] = t;
        m->y[m->rows] = y;
        m->rows++;
    }
    fclose(f);
    if (m->rows == 0 || size <= 0) {
        snprintf(why, n, "%s has no rows", m->path);
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
    if (!instantiationToken || strcmp(instantiationToken, "{0c6e1f7a-3d52-4b8e-9f1a-7b2c4d6e8f90}") != 0) {
        report(logMessage, instanceEnvironment, "wrong instantiationToken");
        return NULL;
    }
    Instance *m = calloc(1, sizeof(Instance));
    if (!m) return NULL;
    memcpy(m->v, START, sizeof START);
    m->log = logMessage;
    m->env = instanceEnvironment;
    char why[600];
    if (read_table(m, resourcePath, why, sizeof why) != 0) {
        report(logMessage, instanceEnvironment, why);
        free(m);
        return NULL;
    }
    m->v[VR_ROWS] = m->rows;
    update(m);
    return m;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Instance *m = instance;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    m->v[VR_TIME] = startTime;
    if (m->v[VR_WRITE_TEST] != 0) {
        char out[520];
        snprintf(out, sizeof out, "%.*sout.txt", (int)(strlen(m->path) - strlen("table.txt")), m->path);
        FILE *f = fopen(out, "w");
        if (!f) {
            report(m->log, m->env, "cannot write out.txt");
            return fmi3Error;
        }
        fputs("written\n", f);
        fclose(f);
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    update(instance);
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_U && vrs[i] != VR_GAIN && vrs[i] != VR_WRITE_TEST) {
            report(m->log, m->env, "fmi3SetFloat64: not settable");
            return fmi3Error;
        }
        m->v[vrs[i]] = values[i];
    }
    update(m);
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr, fmi3Float64 values[],
                          size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] >= N_VARS) return fmi3Error;
        values[i] = m->v[vrs[i]];
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    Instance *m = instance;
    (void)noSetFMUStatePriorToCurrentPoint;
    m->v[VR_TIME] = currentCommunicationPoint + communicationStepSize;
    update(m);
    *eventHandlingNeeded = false;
    *terminateSimulation = false;
    *earlyReturn = false;
    *lastSuccessfulTime = m->v[VR_TIME];
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) {
    Instance *m = instance;
    memcpy(m->v, START, sizeof START);
    m->v[VR_ROWS] = m->rows;
    update(m);
    return fmi3OK;
}
