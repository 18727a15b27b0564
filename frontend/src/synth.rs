//! Synthetic C programs for benchmarks and stress tests: many small kernels
//! of the shapes the analysis targets (dense nests, stencils, triangular
//! loops, CSR products, edge-list scatters), with varied constants so no two
//! functions are identical.

use std::fmt::Write;

/// Loops per generated group of kernels (see [`synthetic_c`]).
pub const LOOPS_PER_GROUP: usize = 12;

/// C source with `groups` groups of five kernels each; every group has
/// [`LOOPS_PER_GROUP`] loops after `clang -O1`.
pub fn synthetic_c(groups: usize) -> String {
    let mut s = String::new();
    for g in 0..groups {
        let a = g % 7 + 1;
        let b = g % 5 + 2;
        // 3 loops.
        let _ = writeln!(
            s,
            "void mm{g}(int n, const double *restrict A, const double *restrict B, double *restrict C) {{\n\
             for (int i = 0; i < n; i++)\n  for (int j = 0; j < n; j++) {{\n    double t = 0.0;\n\
             for (int k = 0; k < n; k++) t += A[i*n+k] * B[k*n+j];\n    C[i*n+j] = {a}.0 * t;\n  }}\n}}"
        );
        // 2 loops.
        let _ = writeln!(
            s,
            "void st{g}(int n, const float *restrict in, float *restrict out) {{\n\
             for (int i = 1; i < n - 1; i++)\n  for (int j = 1; j < n - 1; j++)\n\
             out[i*n+j] = in[i*n+j] + {b}.0f * (in[(i-1)*n+j] + in[(i+1)*n+j] + in[i*n+j-1] + in[i*n+j+1]);\n}}"
        );
        // 2 loops.
        let _ = writeln!(
            s,
            "void tri{g}(int n, const double *restrict L, const double *restrict x, double *restrict y) {{\n\
             for (int i = 0; i < n; i++) {{\n  double t = 0.0;\n  for (int j = 0; j <= i; j++) t += L[i*n+j] * x[j];\n  y[i] = t + {a}.0;\n}}\n}}"
        );
        // 2 loops.
        let _ = writeln!(
            s,
            "void sp{g}(int m, const int *restrict rp, const int *restrict col, const double *restrict v,\n\
             const double *restrict x, double *restrict y) {{\n\
             for (int r = 0; r < m; r++) {{\n  double t = 0.0;\n  for (int p = rp[r]; p < rp[r+1]; p++) t += v[p] * x[col[p]];\n  y[r] = {b}.0 * t;\n}}\n}}"
        );
        // 3 loops.
        let _ = writeln!(
            s,
            "void ed{g}(int m, int n, int *restrict src, int *restrict dst, const double *restrict x, double *restrict y) {{\n\
             for (int e = 0; e < m; e++) {{ src[e] = (e * {a}) % n; dst[e] = (e * {b} + 1) % n; }}\n\
             for (int e = 0; e < m; e++) y[dst[e]] += x[src[e]];\n\
             for (int e = 0; e < m; e++) y[src[e]] -= {a}.0 * x[dst[e]];\n}}"
        );
    }
    s
}
