/* The FMI 3.0 C types and status codes this example uses, written from the FMI 3.0
 * standard's type list (fmi-standard.org, "fmi3PlatformTypes.h" / "fmi3FunctionTypes.h").
 * An FMU that includes the official headers instead compiles the same way; build it
 * without FMI3_FUNCTION_PREFIX so the exports are named plainly `fmi3DoStep` etc. */
#ifndef FMI3_TYPES_H
#define FMI3_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void *fmi3Instance;
typedef void *fmi3InstanceEnvironment;
typedef void *fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef double fmi3Float64;
typedef int32_t fmi3Int32;
typedef bool fmi3Boolean;
typedef const char *fmi3String;

typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;

typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment instanceEnvironment, fmi3Status status,
                                       fmi3String category, fmi3String message);
typedef void (*fmi3IntermediateUpdateCallback)(
    fmi3InstanceEnvironment instanceEnvironment, fmi3Float64 intermediateUpdateTime,
    fmi3Boolean intermediateVariableSetRequested, fmi3Boolean intermediateVariableGetAllowed,
    fmi3Boolean intermediateStepFinished, fmi3Boolean canReturnEarly, fmi3Boolean *earlyReturnRequested,
    fmi3Float64 *earlyReturnTime);

/* wasm32 clang hides symbols by default; like the official fmi3Functions.h, mark the API
 * with default visibility so that `-Wl,--export-dynamic` exports it. */
#define FMI3_Export __attribute__((visibility("default")))

#endif
