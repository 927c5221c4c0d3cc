/* Clocks in co-simulation with Event Mode, in plain C (the test FMU of clock ports and of
 * String and Binary outputs):
 *
 *   tick        (output Clock)  ticks at every time event, every `period` seconds: fmi3DoStep
 *                               reports eventHandlingNeeded at the end of the step that
 *                               reaches it, fmi3GetClock then returns it active
 *   ticks       (Int32, clocks tick) ticks so far
 *   trigger     (input Clock)   activated with fmi3SetClock in Event Mode
 *   triggered   (Int32)         activations of trigger so far
 *   last_trigger (Float64)      time of the last activation (-1 before)
 *   status      (String)        "tick N, \"trigger\" M" (a comma and quotes, for the CSV)
 *   frame       (Binary)        bytes 0xCA, ticks, triggered
 *
 * fmi3UpdateDiscreteStates counts an active trigger and deactivates every clock. Built like
 * c_types (cargo xtask fmus). Value references as in modelDescription.xml beside this file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c_spring_damper/fmi3_types.h"

typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;

enum {
    VR_TIME = 0, VR_PERIOD = 1, VR_TICK = 10, VR_TICKS = 11, VR_TRIGGER = 20, VR_TRIGGERED = 21,
    VR_LAST_TRIGGER = 22, VR_STATUS = 30, VR_FRAME = 31
};

typedef struct {
    double time, period, next_event, last_trigger;
    int32_t ticks, triggered;
    bool tick_active, trigger_active;
    char status[64];
    uint8_t frame[3];
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment env;
} Instance;

static void report(const Instance *m, const char *message) {
    if (m->log) m->log(m->env, fmi3Error, "logStatusError", message);
    fprintf(stderr, "c_clocks: %s\n", message);
}

static void start_values(Instance *m) {
    m->time = 0;
    m->period = 0.25;
    m->next_event = 0;
    m->last_trigger = -1;
    m->ticks = 0;
    m->triggered = 0;
    m->tick_active = false;
    m->trigger_active = false;
}

static void update(Instance *m) {
    snprintf(m->status, sizeof m->status, "tick %d, \"trigger\" %d", (int)m->ticks, (int)m->triggered);
    m->frame[0] = 0xCA;
    m->frame[1] = (uint8_t)m->ticks;
    m->frame[2] = (uint8_t)m->triggered;
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
    (void)instanceName; (void)resourcePath; (void)visible; (void)loggingOn; (void)earlyReturnAllowed;
    (void)requiredIntermediateVariables; (void)nRequiredIntermediateVariables; (void)intermediateUpdate;
    if (!instantiationToken || strcmp(instantiationToken, "{9d4f6a21-3c0e-4b7a-a5e2-61c8f0d3b924}") != 0) {
        if (logMessage) logMessage(instanceEnvironment, fmi3Error, "logStatusError", "wrong instantiationToken");
        return NULL;
    }
    Instance *m = calloc(1, sizeof(Instance));
    if (!m) return NULL;
    m->log = logMessage;
    m->env = instanceEnvironment;
    if (!eventModeUsed) {
        report(m, "clocks need eventModeUsed");
        free(m);
        return NULL;
    }
    start_values(m);
    update(m);
    return m;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Instance *m = instance;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    m->time = startTime;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Instance *m = instance;
    if (!(m->period > 0)) {
        report(m, "period must be positive");
        return fmi3Error;
    }
    m->next_event = m->time + m->period;
    update(m);
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                      fmi3Float64 values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_TIME: values[i] = m->time; break;
            case VR_PERIOD: values[i] = m->period; break;
            case VR_LAST_TRIGGER: values[i] = m->last_trigger; break;
            default: report(m, "fmi3GetFloat64: unknown value reference"); return fmi3Error;
        }
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                      const fmi3Float64 values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_PERIOD) {
            report(m, "fmi3SetFloat64: only period can be set");
            return fmi3Error;
        }
        m->period = values[i];
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    fmi3Int32 values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_TICKS: values[i] = m->ticks; break;
            case VR_TRIGGERED: values[i] = m->triggered; break;
            default: report(m, "fmi3GetInt32: unknown value reference"); return fmi3Error;
        }
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    const fmi3Int32 values[], size_t nValues) {
    Instance *m = instance;
    (void)vrs; (void)nvr; (void)values; (void)nValues;
    report(m, "fmi3SetInt32: no Int32 variable can be set");
    return fmi3Error;
}

FMI3_Export fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     fmi3String values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_STATUS) return fmi3Error;
        values[i] = m->status;
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     const fmi3String values[], size_t nValues) {
    (void)instance; (void)vrs; (void)nvr; (void)values; (void)nValues;
    return fmi3Error;
}

FMI3_Export fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     size_t valueSizes[], fmi3Binary values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_FRAME) return fmi3Error;
        values[i] = m->frame;
        valueSizes[i] = sizeof m->frame;
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                     const size_t valueSizes[], const fmi3Binary values[], size_t nValues) {
    (void)instance; (void)vrs; (void)nvr; (void)valueSizes; (void)values; (void)nValues;
    return fmi3Error;
}

FMI3_Export fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    fmi3Clock values[]) {
    Instance *m = instance;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_TICK: values[i] = m->tick_active; break;
            case VR_TRIGGER: values[i] = m->trigger_active; break;
            default: report(m, "fmi3GetClock: unknown value reference"); return fmi3Error;
        }
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    const fmi3Clock values[]) {
    Instance *m = instance;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_TRIGGER) {
            report(m, "fmi3SetClock: only the input clock trigger can be set");
            return fmi3Error;
        }
        m->trigger_active = values[i];
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3EnterEventMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                                fmi3Boolean *terminateSimulation,
                                                fmi3Boolean *nominalsOfContinuousStatesChanged,
                                                fmi3Boolean *valuesOfContinuousStatesChanged,
                                                fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime) {
    Instance *m = instance;
    if (m->trigger_active) {
        m->triggered++;
        m->last_trigger = m->time;
    }
    m->trigger_active = false;
    m->tick_active = false;
    update(m);
    *discreteStatesNeedUpdate = false;
    *terminateSimulation = false;
    *nominalsOfContinuousStatesChanged = false;
    *valuesOfContinuousStatesChanged = false;
    *nextEventTimeDefined = true;
    *nextEventTime = m->next_event;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3EnterStepMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    Instance *m = instance;
    (void)noSetFMUStatePriorToCurrentPoint;
    double end = currentCommunicationPoint + communicationStepSize;
    *eventHandlingNeeded = false;
    /* A time event at the step's end (a tolerance of 1e-9 periods for the grid's rounding). */
    if (m->next_event <= end + 1e-9 * m->period) {
        m->ticks++;
        m->tick_active = true;
        m->next_event += m->period;
        *eventHandlingNeeded = true;
    }
    m->time = end;
    update(m);
    *terminateSimulation = false;
    *earlyReturn = false;
    *lastSuccessfulTime = end;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) {
    Instance *m = instance;
    start_values(m);
    update(m);
    return fmi3OK;
}
