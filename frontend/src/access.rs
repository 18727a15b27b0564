//! Access functions: every load and store inside a loop, decomposed into a
//! base object and an index.
//!
//! * **affine**: the byte offset from the base is a [`Poly`] affine in the
//!   enclosing induction variables, with coefficients over invariant symbols
//!   (dissertation §5.5.1, `r = A i + o`, flattened to one dimension);
//! * **indirect**: the offset depends on a value loaded inside the nest, the
//!   `x[col[j]]` references of chapter 4; the index array (the base of that
//!   load) is recorded;
//! * **unknown**: anything else, with the reason.
//!
//! Base objects are arguments (with their `noalias` attribute), globals,
//! allocas, pointers loaded from memory, or other pointer values.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::values::{BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue};
use serde::Serialize;

use crate::cfg::BlockId;
use crate::expr::{Poly, Sym};
use crate::ir::{self, ValueKey};
use crate::iv::Evaluator;
use crate::loops::{LoopForest, LoopId};
use crate::symbols::SymKind;

/// Index of an access in [`crate::FunctionAnalysis::accesses`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct AccessId(pub u32);

/// Load or store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    /// A load.
    Load,
    /// A store.
    Store,
}

/// What kind of object a base pointer is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum BaseKind {
    /// The `index`-th function argument.
    Argument {
        /// Position in the parameter list.
        index: u32,
        /// Whether it carries `noalias` (C `restrict`).
        noalias: bool,
    },
    /// A global variable.
    Global,
    /// A stack allocation.
    Alloca,
    /// A pointer loaded from memory.
    Loaded,
    /// Any other pointer (call result, phi, select, ...).
    Other,
}

/// A base object.
#[derive(Debug, Clone)]
pub struct Base<'ctx> {
    /// The base pointer value.
    pub value: BasicValueEnum<'ctx>,
    /// Display name (`A`, `@in`, ...).
    pub name: String,
    /// Its kind.
    pub kind: BaseKind,
}

impl<'ctx> Base<'ctx> {
    /// Identity of the base pointer.
    pub fn key(&self) -> ValueKey {
        ValueKey::of(&self.value)
    }

    /// Whether the base is a distinct object: a global, an alloca, or a `noalias` argument.
    pub fn is_identified(&self) -> bool {
        matches!(
            self.kind,
            BaseKind::Global | BaseKind::Alloca | BaseKind::Argument { noalias: true, .. }
        )
    }
}

/// Classification of an access.
#[derive(Debug, Clone)]
pub enum AccessClass<'ctx> {
    /// Affine byte offset from the base.
    Affine {
        /// Byte offset.
        offset: Poly,
    },
    /// Offset computed from a value loaded inside the loop nest.
    Indirect {
        /// Byte offset; mentions the loaded index as a symbol.
        offset: Poly,
        /// The load of the index.
        index_load: InstructionValue<'ctx>,
        /// The index array.
        index_array: Base<'ctx>,
        /// Byte offset of the index load in its array, when affine.
        index_offset: Option<Poly>,
    },
    /// Not analysable.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl AccessClass<'_> {
    /// `"affine"`, `"indirect"` or `"unknown"`.
    pub fn label(&self) -> &'static str {
        match self {
            AccessClass::Affine { .. } => "affine",
            AccessClass::Indirect { .. } => "indirect",
            AccessClass::Unknown { .. } => "unknown",
        }
    }
}

/// One memory access.
#[derive(Debug, Clone)]
pub struct Access<'ctx> {
    /// Its id.
    pub id: AccessId,
    /// The load or store instruction.
    pub inst: InstructionValue<'ctx>,
    /// Load or store.
    pub kind: AccessKind,
    /// Its block.
    pub block: BlockId,
    /// Innermost enclosing loop.
    pub loop_id: Option<LoopId>,
    /// The address operand.
    pub ptr: BasicValueEnum<'ctx>,
    /// The base object.
    pub base: Base<'ctx>,
    /// Size in bytes of the accessed value.
    pub size: u64,
    /// Classification.
    pub class: AccessClass<'ctx>,
    /// Byte strides of the fixed-size array type the address indexes
    /// (outermost first, element size last), for [`crate::delinearize`].
    pub strides: Option<Vec<i64>>,
}

/// Makes a [`Base`] from a base pointer.
pub fn make_base<'ctx>(
    f: FunctionValue<'ctx>,
    ev: &Evaluator<'_, 'ctx>,
    v: BasicValueEnum<'ctx>,
) -> Base<'ctx> {
    let name = ev.base_name(v);
    let kind = if ir::is_argument(v) {
        let key = ValueKey::of(&v);
        let index = f
            .get_params()
            .iter()
            .position(|p| ValueKey::of(p) == key)
            .unwrap_or(0) as u32;
        let noalias = f
            .get_enum_attribute(
                AttributeLoc::Param(index),
                Attribute::get_named_enum_kind_id("noalias"),
            )
            .is_some();
        BaseKind::Argument { index, noalias }
    } else if ir::is_global(v) {
        BaseKind::Global
    } else {
        match ir::as_instruction(v).map(|i| i.get_opcode()) {
            Some(InstructionOpcode::Alloca) => BaseKind::Alloca,
            Some(InstructionOpcode::Load) => BaseKind::Loaded,
            _ => BaseKind::Other,
        }
    };
    Base {
        value: v,
        name,
        kind,
    }
}

/// Collects and classifies the accesses inside loops of a function.
pub fn collect<'ctx>(
    f: FunctionValue<'ctx>,
    cfg: &crate::cfg::Cfg<'ctx>,
    forest: &LoopForest,
    ev: &mut Evaluator<'_, 'ctx>,
    td: &inkwell::targets::TargetData,
) -> Vec<Access<'ctx>> {
    let mut out = Vec::new();
    for bi in 0..cfg.len() {
        let b = BlockId(bi as u32);
        let Some(lp) = forest.loop_of(b) else {
            continue;
        };
        let mut inst = cfg.block(b).get_first_instruction();
        while let Some(i) = inst {
            inst = i.get_next_instruction();
            let (kind, ptr_idx) = match i.get_opcode() {
                InstructionOpcode::Load => (AccessKind::Load, 0),
                InstructionOpcode::Store => (AccessKind::Store, 1),
                _ => continue,
            };
            let Some(ptr) = ir::value_operand(i, ptr_idx) else {
                continue;
            };
            let size = match kind {
                AccessKind::Load => ir::basic_value_of_inst(i).map(|v| type_size(td, v)),
                AccessKind::Store => ir::value_operand(i, 0).map(|v| type_size(td, v)),
            }
            .unwrap_or(0);
            let addr = ev.address(ptr);
            let base = make_base(f, ev, addr.base);
            let class = classify(f, forest, ev, lp, &addr, &base, i);
            let strides = crate::delinearize::strides(td, ptr);
            out.push(Access {
                id: AccessId(out.len() as u32),
                inst: i,
                kind,
                block: b,
                loop_id: Some(lp),
                ptr,
                base,
                size,
                class,
                strides,
            });
        }
    }
    out
}

fn type_size(td: &inkwell::targets::TargetData, v: BasicValueEnum<'_>) -> u64 {
    match v {
        BasicValueEnum::IntValue(x) => td.get_store_size(&x.get_type()),
        BasicValueEnum::FloatValue(x) => td.get_store_size(&x.get_type()),
        BasicValueEnum::PointerValue(x) => td.get_store_size(&x.get_type()),
        BasicValueEnum::VectorValue(x) => td.get_store_size(&x.get_type()),
        BasicValueEnum::StructValue(x) => td.get_store_size(&x.get_type()),
        BasicValueEnum::ArrayValue(x) => td.get_store_size(&x.get_type()),
        BasicValueEnum::ScalableVectorValue(_) => 0,
    }
}

fn classify<'ctx>(
    f: FunctionValue<'ctx>,
    forest: &LoopForest,
    ev: &mut Evaluator<'_, 'ctx>,
    lp: LoopId,
    addr: &crate::iv::Address<'ctx>,
    base: &Base<'ctx>,
    inst: InstructionValue<'ctx>,
) -> AccessClass<'ctx> {
    if let Some(p) = &addr.problem {
        return AccessClass::Unknown { reason: p.clone() };
    }
    if inst.get_volatile().unwrap_or(false) {
        return AccessClass::Unknown {
            reason: "volatile access".into(),
        };
    }
    if let Some(bi) = ir::as_instruction(base.value) {
        if let Some(d) = ev.def_loop(bi) {
            if forest.encloses(d, lp) {
                return AccessClass::Unknown {
                    reason: format!(
                        "base pointer {} is computed inside loop {d} ({})",
                        base.name,
                        match base.kind {
                            BaseKind::Loaded => "loaded from memory",
                            _ => "not an identified object",
                        }
                    ),
                };
            }
        }
    }
    if !addr.offset.is_affine_in_ivs() {
        return AccessClass::Unknown {
            reason: format!(
                "index {} is not affine in the loop induction variables",
                addr.offset.render(&|s| ev.symbols.name(s))
            ),
        };
    }
    // Symbols that vary inside the nest.
    let mut varying_load = None;
    for s in addr.offset.symbols() {
        let Sym::Param(id) = s else { continue };
        let info = ev.symbols.get(id).clone();
        let Some(d) = info.def_loop else { continue };
        if !forest.encloses(d, lp) {
            continue;
        }
        match info.kind {
            SymKind::Load if varying_load.is_none() => varying_load = Some(info),
            SymKind::Load => {}
            _ => {
                return AccessClass::Unknown {
                    reason: format!(
                        "index depends on {} ({}) which varies inside loop {d} and is not an induction variable",
                        info.name,
                        match &info.kind {
                            SymKind::Phi => "a non-induction phi".to_string(),
                            SymKind::Other(op) => format!("a `{op}`"),
                            k => format!("{k:?}"),
                        }
                    ),
                }
            }
        }
    }
    if let Some(info) = varying_load {
        let Some(load) = ir::as_instruction(info.value) else {
            return AccessClass::Unknown {
                reason: "index load is not an instruction".into(),
            };
        };
        let Some(p) = ir::value_operand(load, 0) else {
            return AccessClass::Unknown {
                reason: "malformed index load".into(),
            };
        };
        let ia = ev.address(p);
        let index_array = make_base(f, ev, ia.base);
        return AccessClass::Indirect {
            offset: addr.offset.clone(),
            index_load: load,
            index_array,
            index_offset: if ia.problem.is_none() {
                Some(ia.offset)
            } else {
                None
            },
        };
    }
    AccessClass::Affine {
        offset: addr.offset.clone(),
    }
}
