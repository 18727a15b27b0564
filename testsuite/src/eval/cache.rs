//! Content-hash cache of the harness's jobs.
//!
//! A job's key is a 128-bit hash of everything that determines its output: the
//! job description (serialized as canonical JSON), the key of the job it consumes,
//! the benchmark's source and input bytes, and the toolchain fingerprint (the
//! weft binary itself, since passes, runtime and simulator are linked into it,
//! plus the clang version). A finished job stores `result.json` in
//! `<cache>/<stage>/<key>/`; the entry is only written after every artifact it
//! names is complete (write to a temporary name, then rename), so an interrupted
//! run never leaves a half entry that a rerun would trust.
//!
//! The hash is two independent 64-bit FNV-1a streams (different offset bases).
//! It is a cache key, not a security boundary: collisions only matter against
//! accidental equality, for which 128 bits is ample.

use serde::{de::DeserializeOwned, Serialize};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const BASIS_A: u64 = 0xcbf2_9ce4_8422_2325;
const BASIS_B: u64 = 0x6c62_272e_07bb_0142;

/// Incremental 128-bit content hasher.
#[derive(Debug, Clone)]
pub struct ContentHasher {
    a: u64,
    b: u64,
}

impl Default for ContentHasher {
    fn default() -> Self {
        Self::new()
    }
}

impl ContentHasher {
    /// A fresh hasher.
    pub fn new() -> Self {
        ContentHasher {
            a: BASIS_A,
            b: BASIS_B,
        }
    }

    /// Feeds bytes.
    pub fn update(&mut self, bytes: &[u8]) -> &mut Self {
        for &x in bytes {
            self.a = (self.a ^ u64::from(x)).wrapping_mul(FNV_PRIME);
            self.b = (self.b ^ u64::from(x.rotate_left(3))).wrapping_mul(FNV_PRIME);
        }
        self
    }

    /// Feeds a length-prefixed string, so `("ab","c")` and `("a","bc")` differ.
    pub fn field(&mut self, s: &str) -> &mut Self {
        self.update(&(s.len() as u64).to_le_bytes());
        self.update(s.as_bytes())
    }

    /// Feeds a value as canonical JSON.
    pub fn json<T: Serialize>(&mut self, value: &T) -> &mut Self {
        let text = serde_json::to_string(value).unwrap_or_default();
        self.field(&text)
    }

    /// Feeds a file's path-independent content (its bytes, length-prefixed).
    pub fn file(&mut self, path: &Path) -> io::Result<&mut Self> {
        let mut f = fs::File::open(path)?;
        let len = f.metadata()?.len();
        self.update(&len.to_le_bytes());
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            self.update(&buf[..n]);
        }
        Ok(self)
    }

    /// 32 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}{:016x}", self.a, self.b)
    }
}

/// Hash of a string (convenience).
pub fn hash_str(s: &str) -> String {
    ContentHasher::new().field(s).hex()
}

/// The on-disk cache rooted at one directory.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// A cache under `root` (created on first store).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Cache { root: root.into() }
    }

    /// Root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Directory of one entry (artifacts go there).
    pub fn dir(&self, stage: &str, key: &str) -> PathBuf {
        self.root.join(stage).join(key)
    }

    /// Loads a finished entry, or `None` if absent or unreadable (a corrupt entry
    /// is treated as a miss and will be overwritten).
    pub fn load<T: DeserializeOwned>(&self, stage: &str, key: &str) -> Option<T> {
        let path = self.dir(stage, key).join("result.json");
        let text = fs::read_to_string(path).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Marks an entry finished by writing its `result.json` atomically.
    pub fn store<T: Serialize>(&self, stage: &str, key: &str, value: &T) -> io::Result<()> {
        let dir = self.dir(stage, key);
        fs::create_dir_all(&dir)?;
        let tmp = dir.join("result.json.tmp");
        let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
        fs::write(&tmp, text)?;
        fs::rename(tmp, dir.join("result.json"))
    }

    /// Creates (and empties) an entry's directory for a fresh computation.
    pub fn fresh_dir(&self, stage: &str, key: &str) -> io::Result<PathBuf> {
        let dir = self.dir(stage, key);
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        fs::create_dir_all(&dir)?;
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_known_value() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (reference value of the algorithm).
        let mut h = ContentHasher::new();
        h.update(b"a");
        assert_eq!(&h.hex()[..16], "af63dc4c8601ec8c");
    }

    #[test]
    fn fields_are_length_prefixed() {
        let mut x = ContentHasher::new();
        x.field("ab").field("c");
        let mut y = ContentHasher::new();
        y.field("a").field("bc");
        assert_ne!(x.hex(), y.hex());
        assert_eq!(hash_str("q"), hash_str("q"));
    }

    #[test]
    fn store_then_load() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cache::new(dir.path());
        assert!(c.load::<Vec<u32>>("sim", "k").is_none());
        c.store("sim", "k", &vec![1u32, 2]).unwrap();
        assert_eq!(c.load::<Vec<u32>>("sim", "k").unwrap(), vec![1, 2]);
        // A corrupt entry is a miss.
        fs::write(c.dir("sim", "k").join("result.json"), "{").unwrap();
        assert!(c.load::<Vec<u32>>("sim", "k").is_none());
    }
}
