//! Built-in modules.
