//! Connections `u = L y` between modules, validated into a coupling graph.
