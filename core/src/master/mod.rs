//! Master algorithms and the run driver.
