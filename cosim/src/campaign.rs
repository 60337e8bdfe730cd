//! Random kernels co-simulated in numbers (a differential campaign).
