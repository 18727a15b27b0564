//! Offline data-reuse analysis of tagged GPU address traces (issue #32; LASER
//! dissertation ch. 3 §3.2-3.3 and LaPerm Fig. 2; digest §2.4, §4.1, §8.4
//! "Locality"). One module per concept:
//! - [`trace`]: L1 access events tagged with kernel, TB, warp and parent;
//! - [`ratios`]: self and pair reuse ratios, 0.1-bin histograms, chains;
//! - [`distance`]: exact reuse distances;
//! - [`footprint`]: LaPerm's parent–child / child–sibling shared footprints;
//! - [`characterise`]: the whole LASER characterisation of one trace;
//! - [`bloom`]: the Bloom filter (MurmurHash2) of LASER's runtime reuse monitor.

pub mod bloom;
pub mod characterise;
pub mod distance;
pub mod footprint;
pub mod ratios;
pub mod trace;

pub use characterise::{characterise, ReuseReport};
pub use footprint::{footprint, Footprint};
pub use trace::{Access, Recorder, Trace};
