//! The scenario format (JSON), its validation, presets and the high-level simulation.
