//! Project automation: `cargo xtask setup|serve|test|bench`.
fn main() {}
