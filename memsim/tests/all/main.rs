//! Integration tests of weft-memsim (one binary, see conventions.md).

mod micro;
