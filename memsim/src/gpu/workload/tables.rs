//! Data tables and buffers in one flat 64-bit address space (digest §8.5 A).
//!
//! A *table* is a named, read-only integer array with contents (from a generator, a
//! file or the workload builder); a *buffer* is an address-only region (its loads read
//! 0). Both get a base address when added: regions are laid out in order from
//! [`FIRST_BASE`], each base aligned to [`REGION_ALIGN`] bytes (cudaMalloc's 256-byte
//! guarantee), never overlapping, so `value_at` finds a region by binary search.
//! A *family* is an ordered list of tables chosen by an index at run time (the BFS
//! frontiers per level, `frontier(level)[i]`).

use std::collections::HashMap;

/// A table or buffer: index into [`Tables::regions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableId(pub u32);

/// A table family: index into [`Tables::families`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FamilyId(pub u32);

/// The first base address (leaves page 0 and low addresses unused, so an address of 0
/// is never inside a region).
pub const FIRST_BASE: u64 = 0x1000_0000;

/// Alignment of every region's base address, in bytes.
pub const REGION_ALIGN: u64 = 256;

/// Contents of a region.
#[derive(Debug, Clone, PartialEq)]
pub enum RegionData {
    /// A table: one value per element.
    Table(Vec<i64>),
    /// A buffer: address-only.
    Buffer,
}

/// One laid-out table or buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Region {
    /// Name (unique among regions and families).
    pub name: String,
    /// Element size in bytes (1, 2, 4, 8 or 16).
    pub elem_bytes: u32,
    /// Element count.
    pub len: u64,
    /// Base byte address.
    pub base: u64,
    /// Values, or none for a buffer.
    pub data: RegionData,
}

impl Region {
    /// Size in bytes.
    pub fn bytes(&self) -> u64 {
        self.len * self.elem_bytes as u64
    }

    /// True for a table with contents.
    pub fn is_table(&self) -> bool {
        matches!(self.data, RegionData::Table(_))
    }

    /// The element values (empty for a buffer).
    pub fn values(&self) -> &[i64] {
        match &self.data {
            RegionData::Table(v) => v,
            RegionData::Buffer => &[],
        }
    }
}

/// A named, ordered list of tables (never empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// Name.
    pub name: String,
    /// Members in index order.
    pub members: Vec<TableId>,
}

/// Why a region could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TablesError {
    /// The name is already taken.
    #[error("`{0}` is defined twice")]
    Duplicate(String),
    /// The element size is not 1, 2, 4, 8 or 16.
    #[error("`{0}`: elem_bytes must be 1, 2, 4, 8 or 16")]
    ElemBytes(String),
    /// The region does not fit in the address space.
    #[error("`{0}`: the address space is full")]
    Full(String),
    /// A family with no member.
    #[error("family `{0}` has no member")]
    EmptyFamily(String),
}

/// All regions and families of a workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    /// Regions in layout (and address) order.
    pub regions: Vec<Region>,
    /// Families.
    pub families: Vec<Family>,
    /// Named integer results of the builder (`bfs_levels`, ...), usable as constants.
    pub scalars: Vec<(String, i64)>,
    names: HashMap<String, TableId>,
    family_names: HashMap<String, FamilyId>,
    next_base: u64,
}

impl Default for Tables {
    fn default() -> Self {
        Tables {
            regions: Vec::new(),
            families: Vec::new(),
            scalars: Vec::new(),
            names: HashMap::new(),
            family_names: HashMap::new(),
            next_base: FIRST_BASE,
        }
    }
}

impl Tables {
    /// An empty address space.
    pub fn new() -> Self {
        Self::default()
    }

    fn check_new(&self, name: &str) -> Result<(), TablesError> {
        if self.names.contains_key(name) || self.family_names.contains_key(name) {
            return Err(TablesError::Duplicate(name.to_string()));
        }
        Ok(())
    }

    fn push(
        &mut self,
        name: &str,
        elem_bytes: u32,
        len: u64,
        data: RegionData,
    ) -> Result<TableId, TablesError> {
        self.check_new(name)?;
        if !matches!(elem_bytes, 1 | 2 | 4 | 8 | 16) {
            return Err(TablesError::ElemBytes(name.to_string()));
        }
        let base = self.next_base;
        let full = || TablesError::Full(name.to_string());
        let bytes = len.checked_mul(elem_bytes as u64).ok_or_else(full)?;
        // Keep one alignment unit between regions so `&T[len]` (one past the end) is
        // never the first byte of the next region.
        let end = base
            .checked_add(bytes)
            .and_then(|e| e.checked_add(REGION_ALIGN))
            .and_then(|e| e.checked_next_multiple_of(REGION_ALIGN))
            .filter(|e| *e < i64::MAX as u64)
            .ok_or_else(full)?;
        self.next_base = end;
        let id = TableId(self.regions.len() as u32);
        self.regions.push(Region {
            name: name.to_string(),
            elem_bytes,
            len,
            base,
            data,
        });
        self.names.insert(name.to_string(), id);
        Ok(id)
    }

    /// Add a table with contents.
    pub fn add_table(
        &mut self,
        name: &str,
        elem_bytes: u32,
        values: Vec<i64>,
    ) -> Result<TableId, TablesError> {
        let len = values.len() as u64;
        self.push(name, elem_bytes, len, RegionData::Table(values))
    }

    /// Add an address-only buffer of `len` elements.
    pub fn add_buffer(
        &mut self,
        name: &str,
        elem_bytes: u32,
        len: u64,
    ) -> Result<TableId, TablesError> {
        self.push(name, elem_bytes, len, RegionData::Buffer)
    }

    /// Add a family of existing tables.
    pub fn add_family(
        &mut self,
        name: &str,
        members: Vec<TableId>,
    ) -> Result<FamilyId, TablesError> {
        self.check_new(name)?;
        if members.is_empty() {
            return Err(TablesError::EmptyFamily(name.to_string()));
        }
        let id = FamilyId(self.families.len() as u32);
        self.families.push(Family {
            name: name.to_string(),
            members,
        });
        self.family_names.insert(name.to_string(), id);
        Ok(id)
    }

    /// The region with this name.
    pub fn id(&self, name: &str) -> Option<TableId> {
        self.names.get(name).copied()
    }

    /// The family with this name.
    pub fn family_id(&self, name: &str) -> Option<FamilyId> {
        self.family_names.get(name).copied()
    }

    /// A named builder scalar.
    pub fn scalar(&self, name: &str) -> Option<i64> {
        self.scalars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// The region behind an id.
    pub fn region(&self, id: TableId) -> &Region {
        &self.regions[id.0 as usize]
    }

    /// The region with this name.
    pub fn get(&self, name: &str) -> Option<&Region> {
        self.id(name).map(|id| self.region(id))
    }

    /// Element `i` of a region: its value for a table in range, else 0.
    pub fn value(&self, id: TableId, i: i64) -> i64 {
        let r = self.region(id);
        usize::try_from(i)
            .ok()
            .and_then(|i| r.values().get(i).copied())
            .unwrap_or(0)
    }

    /// Byte address of element `i` (wrapping; also outside the region).
    pub fn addr(&self, id: TableId, i: i64) -> i64 {
        let r = self.region(id);
        (r.base as i64).wrapping_add(i.wrapping_mul(r.elem_bytes as i64))
    }

    /// Element count of a region.
    pub fn len_of(&self, id: TableId) -> u64 {
        self.region(id).len
    }

    /// Member `k` of a family, `k` clamped into `0..len`.
    pub fn family_member(&self, f: FamilyId, k: i64) -> TableId {
        let m = &self.families[f.0 as usize].members;
        m[k.clamp(0, m.len() as i64 - 1) as usize]
    }

    /// Number of members of a family.
    pub fn family_len(&self, f: FamilyId) -> usize {
        self.families[f.0 as usize].members.len()
    }

    /// The region containing a byte address.
    pub fn region_at(&self, addr: u64) -> Option<TableId> {
        let i = self.regions.partition_point(|r| r.base <= addr);
        let r = self.regions.get(i.checked_sub(1)?)?;
        (addr - r.base < r.bytes()).then_some(TableId((i - 1) as u32))
    }

    /// The value a load of `bits` bits at `addr` returns: the table element containing
    /// the address, truncated to `bits` (sign-extended), or 0 outside tables and in
    /// buffers. An access wider than the element reads the element alone.
    pub fn value_at(&self, addr: u64, bits: u16) -> i64 {
        let Some(id) = self.region_at(addr) else {
            return 0;
        };
        let r = self.region(id);
        let i = (addr - r.base) / r.elem_bytes as u64;
        let v = r.values().get(i as usize).copied().unwrap_or(0);
        if bits == 0 || bits >= 64 {
            v
        } else {
            let sh = 64 - bits as u32;
            (v << sh) >> sh
        }
    }

    /// One past the last used byte address (the footprint's end).
    pub fn end_address(&self) -> u64 {
        self.next_base
    }
}
