//! Every FMI 3.0 variable of a `modelDescription.xml`, of any type and shape (FMI 3.0
//! §2.4.7). Numeric variables and arrays become the module's ports (`typed_ports`), as do
//! output Clocks and triggered input Clocks; String and Binary variables are parameters,
//! and String and Binary outputs are recorded (`text_outputs`).
//!
//! Clocks are scalars (FMI 3.0 §2.2.9, Clock types: "restricted to being scalar variables"; the
//! schema's `fmi3Clock` has no `<Dimension>`): a `<Clock>` with one is refused by name.
//! Input Clocks are served by kind ([`ClockKind`]): triggered ones by a connected output
//! clock, the time-based ones (periodic with a declared or a computed interval, countdown
//! and changing) by the master itself (`clocks`, `clock_schedule`).

use super::FmuError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::Node;

/// The FMI 3.0 variable types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum VariableType {
    /// `<Float32>`.
    Float32,
    /// `<Float64>`.
    Float64,
    /// `<Int8>` … `<Int64>`, by bit width.
    Int(u8),
    /// `<UInt8>` … `<UInt64>`, by bit width.
    UInt(u8),
    /// `<Boolean>`.
    Boolean,
    /// `<String>`.
    String,
    /// `<Binary>`.
    Binary,
    /// `<Enumeration>` (exchanged as Int64).
    Enumeration,
    /// `<Clock>`.
    Clock,
}

impl VariableType {
    /// The type of an element of `<ModelVariables>`, `None` for anything else.
    pub fn from_tag(tag: &str) -> Option<Self> {
        Some(match tag {
            "Float32" => VariableType::Float32,
            "Float64" => VariableType::Float64,
            "Int8" => VariableType::Int(8),
            "Int16" => VariableType::Int(16),
            "Int32" => VariableType::Int(32),
            "Int64" => VariableType::Int(64),
            "UInt8" => VariableType::UInt(8),
            "UInt16" => VariableType::UInt(16),
            "UInt32" => VariableType::UInt(32),
            "UInt64" => VariableType::UInt(64),
            "Boolean" => VariableType::Boolean,
            "String" => VariableType::String,
            "Binary" => VariableType::Binary,
            "Enumeration" => VariableType::Enumeration,
            "Clock" => VariableType::Clock,
            _ => return None,
        })
    }
}

/// One `<Dimension>` of an array variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// `start="n"`: a fixed extent.
    Fixed(u64),
    /// `valueReference="vr"`: the extent is the structural parameter `vr`.
    Structural(u32),
}

/// A variable as declared, whatever its type.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredVariable {
    /// `name`.
    pub name: String,
    /// `valueReference`.
    pub value_ref: u32,
    /// The element's type.
    pub ty: VariableType,
    /// `causality` as written (`local` when absent).
    pub causality: String,
    /// `<Dimension>` children, outermost first; empty for a scalar.
    pub dimensions: Vec<Dimension>,
    /// `variability` as written (empty when absent).
    pub variability: String,
    /// The start value as written: the `start` attribute (space-separated for an array),
    /// or the `<Start value>` children of a String or Binary variable, one per element.
    pub start: Vec<String>,
    /// `description`.
    pub description: String,
    /// `unit`, when given.
    pub unit: String,
    /// `clocks`: the value references of the clocks this variable is clocked by.
    pub clocks: Vec<u32>,
    /// `declaredType` (an Enumeration's item list), empty when absent.
    pub declared_type: String,
    /// A Clock's timing attributes; `None` for the other types.
    pub clock: Option<ClockTiming>,
}

/// When a `<Clock>` ticks, as its attributes say (FMI 3.0, the Clock attributes).
#[derive(Clone, Debug, PartialEq)]
pub struct ClockTiming {
    /// `intervalVariability` as written (empty when absent).
    pub interval_variability: String,
    /// The interval in seconds: `intervalDecimal`, or `intervalCounter / resolution`.
    pub interval: Option<f64>,
    /// The delay of the first tick after the start time: `shiftDecimal`, or
    /// `shiftCounter / resolution`; 0 when absent.
    pub shift: f64,
}

/// How the master serves an input Clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClockKind {
    /// `triggered` (or no `intervalVariability`): a port, ticked by a connected output clock.
    Triggered,
    /// `constant`, `fixed` or `tunable` with a declared interval: the master ticks it at
    /// `start + shift + k interval` (never calls `fmi3SetIntervalDecimal`, so a fixed or
    /// tunable clock keeps its declared interval).
    Periodic {
        /// Seconds between ticks.
        interval: f64,
        /// Seconds from the start time to the first tick.
        shift: f64,
    },
    /// `fixed` or `tunable` without a declared interval: the master asks
    /// `fmi3GetIntervalDecimal` (and `fmi3GetShiftDecimal`) in Initialization Mode, and a
    /// tunable one again at every event (its new interval counts from that event).
    /// `calculated`, a pre-release spelling that FMI 3.0 dropped, is read as `fixed`.
    Computed {
        /// `tunable`: the interval may change at events.
        tunable: bool,
        /// The declared shift, used if the module does not export `fmi3GetShiftDecimal`.
        shift: f64,
    },
    /// `countdown` or `changing`: the master asks `fmi3GetIntervalDecimal` in
    /// Initialization Mode (the first tick, from the start time) and then in every Event
    /// Mode (countdown) or in the Event Mode where the clock ticked (changing).
    Aperiodic {
        /// `countdown` (else `changing`).
        countdown: bool,
    },
}

impl DeclaredVariable {
    /// Whether it is one or more of the module's ports (a numeric variable or array, or
    /// a clock): String and Binary variables are parameters (and recorded outputs).
    pub fn is_supported(&self) -> bool {
        super::typed_ports::port_type(self.ty).is_some()
    }

    /// Whether it is an output clock or a triggered input clock (a port of type Clock).
    pub fn is_clock_port(&self) -> bool {
        self.ty == VariableType::Clock
            && self.dimensions.is_empty()
            && match self.causality.as_str() {
                "output" => true,
                "input" => matches!(self.input_clock_kind(), Ok(ClockKind::Triggered)),
                _ => false,
            }
    }

    /// How the master serves this input clock; an intervalVariability it does not know
    /// (or a constant clock without its interval) is refused with the variable's name.
    pub fn input_clock_kind(&self) -> Result<ClockKind, FmuError> {
        let timing = self.clock.as_ref();
        let variability = timing.map_or("", |c| c.interval_variability.as_str());
        let refused = |why: &str| {
            Err(err(format!(
                "input clock `{}` (intervalVariability=\"{variability}\"): {why}; the master \
                 serves the FMI 3.0 kinds triggered, constant, fixed, tunable, changing and \
                 countdown",
                self.name
            )))
        };
        let shift = timing.map_or(0.0, |c| c.shift);
        match (variability, timing.and_then(|c| c.interval)) {
            ("" | "triggered", _) => Ok(ClockKind::Triggered),
            ("constant" | "fixed" | "tunable", Some(interval)) => {
                Ok(ClockKind::Periodic { interval, shift })
            }
            ("constant", None) => refused(
                "a constant clock declares its interval (intervalDecimal or intervalCounter), \
                 FMI 3.0 says; this one does not",
            ),
            ("fixed" | "calculated", _) => Ok(ClockKind::Computed {
                tunable: false,
                shift,
            }),
            ("tunable", None) => Ok(ClockKind::Computed {
                tunable: true,
                shift,
            }),
            ("changing", _) => Ok(ClockKind::Aperiodic { countdown: false }),
            ("countdown", _) => Ok(ClockKind::Aperiodic { countdown: true }),
            _ => refused("not an FMI 3.0 intervalVariability"),
        }
    }
}

/// The timing attributes of `<Clock>` node `v`; a number that does not parse, an
/// interval that is not positive or a negative shift is refused by name.
fn clock_timing(v: Node<'_, '_>, name: &str) -> Result<ClockTiming, FmuError> {
    let number = |attr: &str| -> Result<Option<f64>, FmuError> {
        v.attribute(attr)
            .map(|text| {
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| {
                        err(format!(
                            "<Clock name=\"{name}\">: {attr}=\"{text}\" is not a finite number"
                        ))
                    })
            })
            .transpose()
    };
    let resolution = number("resolution")?.unwrap_or(1.0);
    let counted = |attr: &str| Ok::<_, FmuError>(number(attr)?.map(|n| n / resolution));
    let interval = match number("intervalDecimal")? {
        Some(x) => Some(x),
        None => counted("intervalCounter")?,
    };
    let shift = match number("shiftDecimal")? {
        Some(x) => x,
        None => counted("shiftCounter")?.unwrap_or(0.0),
    };
    if interval.is_some_and(|x| x <= 0.0) || shift < 0.0 || resolution <= 0.0 {
        return Err(err(format!(
            "<Clock name=\"{name}\">: the interval and resolution must be positive and the \
             shift not negative"
        )));
    }
    Ok(ClockTiming {
        interval_variability: v.attribute("intervalVariability").unwrap_or("").to_string(),
        interval,
        shift,
    })
}

fn err(msg: String) -> FmuError {
    FmuError::ModelDescription(msg)
}

fn child_named(v: Node<'_, '_>, tag: &str) -> bool {
    v.children()
        .any(|c| c.is_element() && c.tag_name().name() == tag)
}

/// Every element of `<ModelVariables>`; an unknown element is refused by name.
pub fn declared_variables(list: Node<'_, '_>) -> Result<Vec<DeclaredVariable>, FmuError> {
    let mut out = Vec::new();
    for v in list.children().filter(|c| c.is_element()) {
        let tag = v.tag_name().name();
        let ty = VariableType::from_tag(tag).ok_or_else(|| {
            err(format!(
                "<ModelVariables> has a <{tag}>, which is not an FMI 3.0 variable type"
            ))
        })?;
        let name = v
            .attribute("name")
            .ok_or_else(|| err(format!("a <{tag}> has no name")))?;
        let value_ref = v
            .attribute("valueReference")
            .and_then(|r| r.trim().parse().ok())
            .ok_or_else(|| {
                err(format!(
                    "<{tag} name=\"{name}\"> has no valid valueReference"
                ))
            })?;
        let mut dimensions = Vec::new();
        if ty == VariableType::Clock && child_named(v, "Dimension") {
            return Err(err(format!(
                "<Clock name=\"{name}\"> has a <Dimension>: FMI 3.0 restricts clocks to scalar \
                 variables (its schema gives <Clock> no <Dimension>); declare one <Clock> per \
                 element"
            )));
        }
        for d in v
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "Dimension")
        {
            let fixed = d.attribute("start").map(|s| s.trim().parse::<u64>());
            let structural = d
                .attribute("valueReference")
                .map(|s| s.trim().parse::<u32>());
            dimensions.push(match (fixed, structural) {
                (Some(Ok(n)), None) => Dimension::Fixed(n),
                (None, Some(Ok(vr))) => Dimension::Structural(vr),
                _ => {
                    return Err(err(format!(
                        "<{tag} name=\"{name}\">: a <Dimension> needs either start (an extent) or \
                         valueReference (a structural parameter)"
                    )))
                }
            });
        }
        let start = match v.attribute("start") {
            Some(text) if matches!(ty, VariableType::String | VariableType::Binary) => {
                alloc::vec![text.to_string()]
            }
            Some(text) => text.split_whitespace().map(str::to_string).collect(),
            None => v
                .children()
                .filter(|c| c.is_element() && c.tag_name().name() == "Start")
                .filter_map(|c| c.attribute("value").map(str::to_string))
                .collect(),
        };
        let text = |a: &str| v.attribute(a).unwrap_or_default().to_string();
        out.push(DeclaredVariable {
            name: name.to_string(),
            value_ref,
            ty,
            causality: v.attribute("causality").unwrap_or("local").to_string(),
            dimensions,
            variability: text("variability"),
            start,
            description: text("description"),
            unit: text("unit"),
            declared_type: text("declaredType"),
            clock: match ty {
                VariableType::Clock => Some(clock_timing(v, name)?),
                _ => None,
            },
            clocks: v
                .attribute("clocks")
                .unwrap_or_default()
                .split_whitespace()
                .map(|c| {
                    c.parse().map_err(|_| {
                        err(format!(
                            "<{tag} name=\"{name}\">: clocks=\"{c}\" is not a value reference"
                        ))
                    })
                })
                .collect::<Result<_, _>>()?,
        });
    }
    Ok(out)
}
