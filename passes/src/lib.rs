//! # weft-passes: the transformation passes and their manager
//!
//! Passes are small structs implementing one trait and registered once under a
//! kebab-case name; the manager parses pipeline strings, times each pass, verifies
//! the module after each pass in debug builds and tests, and collects remarks.
#![warn(missing_docs)]
