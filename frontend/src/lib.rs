//! # weft-frontend: loading programs and analysing their loops
//!
//! Loads LLVM IR (`.ll`, `.bc`) through inkwell, or C through `clang-19`, and
//! builds the analysis view every pass relies on: CFG and dominators (petgraph),
//! natural loops and the loop forest, induction variables and trip counts, access
//! functions (affine, indirect through an index array, or unknown with a reason),
//! dependence tests and the parallel regions of dissertation §4.4.1 and §5.5.1.
#![warn(missing_docs)]
