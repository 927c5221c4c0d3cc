/* Mass 2 of the two-mass oscillator (seed 000, digest §5.1) with the coupling
 * spring-damper, as an FMI 3.0 co-simulation module in plain C:
 *
 *   s2' = v2
 *   v2' = (-(ck + c2) s2 - (dk + d2) v2 + ck s1 + dk v1) / m2
 *   Fk  = ck (s2 - s1) + dk (v2 - v1)          (direct feedthrough from s1, v1)
 *
 * integrated with classical RK4 micro-steps of at most h_max, the inputs s1, v1 held
 * over each communication step. A deliberately "weak" module: no FMU state, no
 * derivatives, so the playground shows which algorithms need more.
 *
 * Built with
 *   clang --target=wasm32-wasi --sysroot=/usr -O2 -mexec-model=reactor \
 *     -Wl,--export-dynamic -Wl,--export=malloc -Wl,--export=free \
 *     -Wl,--export-table -Wl,--growable-table -o c_spring_damper.wasm spring_damper.c
 * (cargo xtask fmus does this and packages the .fmu). Value references as in
 * modelDescription.xml beside this file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3_types.h"

enum { VR_TIME, VR_S1, VR_V1, VR_FK, VR_S2, VR_V2, VR_M2, VR_C2, VR_D2, VR_CK, VR_DK, VR_H_MAX, N_VARS };

typedef struct {
    double v[N_VARS];
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment env;
} Instance;

static const double START[N_VARS] = {
    [VR_TIME] = 0, [VR_S1] = 0, [VR_V1] = 0, [VR_FK] = 0, [VR_S2] = 0, [VR_V2] = 0,
    [VR_M2] = 10, [VR_C2] = 1e7, [VR_D2] = 2, [VR_CK] = 2e5, [VR_DK] = 5e2, [VR_H_MAX] = 1e-5,
};

static fmi3Status fail(Instance *m, const char *message) {
    if (m->log) m->log(m->env, fmi3Error, "logStatusError", message);
    /* Also visible in the host's module log through WASI fd_write. */
    fputs("c_spring_damper: ", stderr);
    fputs(message, stderr);
    fputs("\n", stderr);
    return fmi3Error;
}

static double force(const double *v) {
    return v[VR_CK] * (v[VR_S2] - v[VR_S1]) + v[VR_DK] * (v[VR_V2] - v[VR_V1]);
}

static double accel(const double *v, double s2, double v2) {
    return (-(v[VR_CK] + v[VR_C2]) * s2 - (v[VR_DK] + v[VR_D2]) * v2 + v[VR_CK] * v[VR_S1] + v[VR_DK] * v[VR_V1]) / v[VR_M2];
}

static void rk4(double *v, double h) {
    double s = v[VR_S2], w = v[VR_V2];
    double k1s = w, k1v = accel(v, s, w);
    double k2s = w + 0.5 * h * k1v, k2v = accel(v, s + 0.5 * h * k1s, w + 0.5 * h * k1v);
    double k3s = w + 0.5 * h * k2v, k3v = accel(v, s + 0.5 * h * k2s, w + 0.5 * h * k2v);
    double k4s = w + h * k3v, k4v = accel(v, s + h * k3s, w + h * k3v);
    v[VR_S2] = s + h / 6.0 * (k1s + 2.0 * k2s + 2.0 * k3s + k4s);
    v[VR_V2] = w + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
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
    (void)instanceName; (void)resourcePath; (void)visible; (void)loggingOn; (void)eventModeUsed;
    (void)earlyReturnAllowed; (void)requiredIntermediateVariables; (void)nRequiredIntermediateVariables;
    (void)intermediateUpdate;
    if (!instantiationToken || strcmp(instantiationToken, "{5b0d3c55-6a8c-4d0e-9a57-c5d0a5f2b7e1}") != 0) {
        fputs("c_spring_damper: wrong instantiationToken\n", stderr);
        return NULL;
    }
    Instance *m = calloc(1, sizeof(Instance));
    if (!m) return NULL;
    memcpy(m->v, START, sizeof START);
    m->log = logMessage;
    m->env = instanceEnvironment;
    return m;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Instance *m = instance;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    m->v[VR_TIME] = startTime;
    if (!(m->v[VR_M2] > 0)) return fail(m, "m2 must be positive");
    if (!(m->v[VR_H_MAX] > 0)) return fail(m, "h_max must be positive");
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Instance *m = instance;
    m->v[VR_FK] = force(m->v);
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                          const fmi3Float64 values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fail(m, "fmi3SetFloat64: nValues differs from nValueReferences");
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] == VR_TIME || vrs[i] == VR_FK || vrs[i] >= N_VARS) return fail(m, "fmi3SetFloat64: not settable");
        m->v[vrs[i]] = values[i];
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr, fmi3Float64 values[],
                          size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fail(m, "fmi3GetFloat64: nValues differs from nValueReferences");
    m->v[VR_FK] = force(m->v);
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] >= N_VARS) return fail(m, "fmi3GetFloat64: unknown value reference");
        values[i] = m->v[vrs[i]];
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    Instance *m = instance;
    (void)noSetFMUStatePriorToCurrentPoint;
    double h = communicationStepSize;
    if (!(h > 0)) return fail(m, "fmi3DoStep: communicationStepSize must be positive");
    /* The smallest whole number of micro-steps not longer than h_max. */
    double n = ceil(h / m->v[VR_H_MAX]);
    if (n < 1) n = 1;
    for (long k = 0; k < (long)n; k++) rk4(m->v, h / n);
    if (!isfinite(m->v[VR_S2]) || !isfinite(m->v[VR_V2])) return fail(m, "fmi3DoStep: the state is no longer finite");
    m->v[VR_TIME] = currentCommunicationPoint + h;
    *eventHandlingNeeded = false;
    *terminateSimulation = false;
    *earlyReturn = false;
    *lastSuccessfulTime = currentCommunicationPoint + h;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) {
    Instance *m = instance;
    memcpy(m->v, START, sizeof START);
    return fmi3OK;
}
