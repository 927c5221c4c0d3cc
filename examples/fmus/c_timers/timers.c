/* Time-based input clocks whose timing only the FMU knows, in plain C (the test FMU of
 * fmi3GetIntervalDecimal / fmi3GetShiftDecimal):
 *
 *   sample   (input Clock, tunable, no intervalDecimal)  interval `period` and shift `offset`,
 *            given in Initialization Mode; at its 3rd tick the FMU doubles the interval and
 *            reports fmi3IntervalChanged (relative to that event) in the same Event Mode
 *   samples, last_sample   activations of sample and the time of the last one
 *   alarm    (input Clock, countdown)  first due 0.3 s after the start (Initialization Mode);
 *            a tick disarms it (fmi3IntervalNotYetKnown); the next tick of sample arms it
 *            again, `delay` seconds ahead (fmi3IntervalChanged in that Event Mode, then
 *            fmi3IntervalUnchanged until it ticks)
 *   alarms, last_alarm     activations of alarm and the time of the last one
 *   pulse    (input Clock, changing)  first 0.2 s after the start, then 0.1 s and 0.2 s in
 *            turn, each interval given in the Event Mode where it ticked
 *   pulses                 activations of pulse
 *
 * A test FMU: a tunable clock's interval normally changes with tunable parameters; here the
 * FMU changes it itself so that an importer's re-reading is seen in the outputs. Built like
 * c_clocks (cargo xtask fmus). Value references as in modelDescription.xml beside this file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../c_spring_damper/fmi3_types.h"

typedef bool fmi3Clock;
typedef enum { fmi3IntervalNotYetKnown, fmi3IntervalUnchanged, fmi3IntervalChanged } fmi3IntervalQualifier;

enum {
    VR_TIME = 0, VR_PERIOD = 1, VR_OFFSET = 2, VR_DELAY = 3,
    VR_SAMPLE = 10, VR_SAMPLES = 11, VR_LAST_SAMPLE = 12,
    VR_ALARM = 20, VR_ALARMS = 21, VR_LAST_ALARM = 22,
    VR_PULSE = 30, VR_PULSES = 31
};

typedef struct {
    double time, period, offset, delay;
    /* sample: its interval now; whether a change is still to be reported. */
    double sample_interval;
    bool sample_changed;
    /* alarm: armed (an interval known), the interval last given, whether still to report. */
    bool alarm_armed, alarm_changed;
    double alarm_interval;
    /* pulse: the next interval, whether it ticked in this Event Mode. */
    double pulse_interval;
    bool pulse_ticked;
    bool initializing;
    bool sample_active, alarm_active, pulse_active;
    int32_t samples, alarms, pulses;
    double last_sample, last_alarm;
    fmi3LogMessageCallback log;
    fmi3InstanceEnvironment env;
} Instance;

static void report(const Instance *m, const char *message) {
    if (m->log) m->log(m->env, fmi3Error, "logStatusError", message);
    fprintf(stderr, "c_timers: %s\n", message);
}

static void start_values(Instance *m) {
    memset(&m->time, 0, offsetof(Instance, log));
    m->period = 0.1;
    m->offset = 0.05;
    m->delay = 0.1;
    m->last_sample = -1;
    m->last_alarm = -1;
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
    if (!instantiationToken || strcmp(instantiationToken, "{5b0e7c3a-84d2-4f61-9a3e-2c7d1f06b8e5}") != 0) {
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
    return m;
}

FMI3_Export void fmi3FreeInstance(fmi3Instance instance) { free(instance); }

FMI3_Export fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined, fmi3Float64 tolerance,
                                       fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Instance *m = instance;
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    if (!(m->period > 0) || !(m->offset >= 0) || !(m->delay >= 0)) {
        report(m, "period must be positive, offset and delay not negative");
        return fmi3Error;
    }
    m->time = startTime;
    m->initializing = true;
    m->sample_interval = m->period;
    m->alarm_armed = true;
    m->alarm_interval = 0.3;
    m->pulse_interval = 0.2;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Instance *m = instance;
    m->initializing = false;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                              fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]) {
    Instance *m = instance;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_SAMPLE:
                intervals[i] = m->sample_interval;
                qualifiers[i] = m->initializing || m->sample_changed ? fmi3IntervalChanged : fmi3IntervalUnchanged;
                m->sample_changed = false;
                break;
            case VR_ALARM:
                intervals[i] = m->alarm_interval;
                qualifiers[i] = !m->alarm_armed ? fmi3IntervalNotYetKnown
                              : m->initializing || m->alarm_changed ? fmi3IntervalChanged : fmi3IntervalUnchanged;
                m->alarm_changed = false;
                break;
            case VR_PULSE:
                intervals[i] = m->pulse_interval;
                qualifiers[i] = m->initializing || m->pulse_ticked ? fmi3IntervalChanged : fmi3IntervalUnchanged;
                break;
            default: report(m, "fmi3GetIntervalDecimal: not a time-based clock"); return fmi3Error;
        }
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                           fmi3Float64 shifts[]) {
    Instance *m = instance;
    for (size_t i = 0; i < nvr; i++) {
        if (vrs[i] != VR_SAMPLE) {
            report(m, "fmi3GetShiftDecimal: only the periodic clock sample has a shift");
            return fmi3Error;
        }
        shifts[i] = m->offset;
    }
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
            case VR_OFFSET: values[i] = m->offset; break;
            case VR_DELAY: values[i] = m->delay; break;
            case VR_LAST_SAMPLE: values[i] = m->last_sample; break;
            case VR_LAST_ALARM: values[i] = m->last_alarm; break;
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
        switch (vrs[i]) {
            case VR_PERIOD: m->period = values[i]; break;
            case VR_OFFSET: m->offset = values[i]; break;
            case VR_DELAY: m->delay = values[i]; break;
            default: report(m, "fmi3SetFloat64: only period, offset and delay can be set"); return fmi3Error;
        }
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    fmi3Int32 values[], size_t nValues) {
    Instance *m = instance;
    if (nvr != nValues) return fmi3Error;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_SAMPLES: values[i] = m->samples; break;
            case VR_ALARMS: values[i] = m->alarms; break;
            case VR_PULSES: values[i] = m->pulses; break;
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

FMI3_Export fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    fmi3Clock values[]) {
    Instance *m = instance;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_SAMPLE: values[i] = m->sample_active; break;
            case VR_ALARM: values[i] = m->alarm_active; break;
            case VR_PULSE: values[i] = m->pulse_active; break;
            default: report(m, "fmi3GetClock: unknown value reference"); return fmi3Error;
        }
    }
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vrs[], size_t nvr,
                                    const fmi3Clock values[]) {
    Instance *m = instance;
    for (size_t i = 0; i < nvr; i++) {
        switch (vrs[i]) {
            case VR_SAMPLE: m->sample_active = values[i]; break;
            case VR_ALARM: m->alarm_active = values[i]; break;
            case VR_PULSE: m->pulse_active = values[i]; break;
            default: report(m, "fmi3SetClock: unknown value reference"); return fmi3Error;
        }
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
    if (m->alarm_active) {
        m->alarms++;
        m->last_alarm = m->time;
        m->alarm_armed = false;
    }
    if (m->sample_active) {
        m->samples++;
        m->last_sample = m->time;
        if (m->samples == 3) {
            m->sample_interval = 2 * m->period;
            m->sample_changed = true;
        }
        if (!m->alarm_armed) {
            m->alarm_armed = true;
            m->alarm_changed = true;
            m->alarm_interval = m->delay;
        }
    }
    if (m->pulse_active) {
        m->pulses++;
        m->pulse_ticked = true;
        m->pulse_interval = m->pulses % 2 ? 0.1 : 0.2;
    }
    m->sample_active = m->alarm_active = m->pulse_active = false;
    *discreteStatesNeedUpdate = false;
    *terminateSimulation = false;
    *nominalsOfContinuousStatesChanged = false;
    *valuesOfContinuousStatesChanged = false;
    *nextEventTimeDefined = false;
    *nextEventTime = 0;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
    Instance *m = instance;
    m->pulse_ticked = false;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint, fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint, fmi3Boolean *eventHandlingNeeded,
                      fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    Instance *m = instance;
    (void)noSetFMUStatePriorToCurrentPoint;
    double end = currentCommunicationPoint + communicationStepSize;
    m->time = end;
    *eventHandlingNeeded = false;
    *terminateSimulation = false;
    *earlyReturn = false;
    *lastSuccessfulTime = end;
    return fmi3OK;
}

FMI3_Export fmi3Status fmi3Terminate(fmi3Instance instance) { (void)instance; return fmi3OK; }

FMI3_Export fmi3Status fmi3Reset(fmi3Instance instance) {
    start_values(instance);
    return fmi3OK;
}
