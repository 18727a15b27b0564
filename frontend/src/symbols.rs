//! The loop-invariant symbols of a function's expressions.
//!
//! Every value an expression cannot decompose further (an argument, a
//! global's address, a loaded value, an unanalysable instruction) becomes a
//! [`SymId`]. A symbol records where it is defined: `def_loop` is the
//! innermost loop containing its definition, so a symbol is invariant in every
//! loop that does not contain `def_loop`. Casts (`sext`, `zext`, `trunc`) are
//! looked through before a symbol is made, so `zext i32 %n` and `%n` are one
//! symbol.

use std::collections::HashMap;

use inkwell::values::BasicValueEnum;
use serde::Serialize;

use crate::expr::{Sym, SymId};
use crate::ir::ValueKey;
use crate::loops::LoopId;

/// What a symbol stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymKind {
    /// A function argument.
    Argument,
    /// The address of a global.
    Global,
    /// A value loaded from memory.
    Load,
    /// A phi that is not an induction variable.
    Phi,
    /// A value of another instruction (named by its opcode).
    Other(String),
}

/// One symbol.
#[derive(Debug, Clone)]
pub struct SymbolInfo<'ctx> {
    /// The LLVM value (casts stripped).
    pub value: BasicValueEnum<'ctx>,
    /// Display name.
    pub name: String,
    /// What it is.
    pub kind: SymKind,
    /// Innermost loop containing its definition (`None`: defined outside all loops).
    pub def_loop: Option<LoopId>,
}

/// Symbols of one function.
#[derive(Debug, Clone, Default)]
pub struct SymbolTable<'ctx> {
    /// Symbols indexed by [`SymId`].
    pub symbols: Vec<SymbolInfo<'ctx>>,
    by_value: HashMap<ValueKey, SymId>,
}

impl<'ctx> SymbolTable<'ctx> {
    /// The symbol of a value, if one was made.
    pub fn lookup(&self, v: ValueKey) -> Option<SymId> {
        self.by_value.get(&v).copied()
    }

    /// Adds (or finds) the symbol of a value.
    pub fn intern(
        &mut self,
        value: BasicValueEnum<'ctx>,
        name: String,
        kind: SymKind,
        def_loop: Option<LoopId>,
    ) -> SymId {
        let key = ValueKey::of(&value);
        if let Some(id) = self.by_value.get(&key) {
            return *id;
        }
        let mut name = name;
        if self.symbols.iter().any(|s| s.name == name) {
            name = format!("{name}.{}", self.symbols.len());
        }
        let id = SymId(self.symbols.len() as u32);
        self.symbols.push(SymbolInfo {
            value,
            name,
            kind,
            def_loop,
        });
        self.by_value.insert(key, id);
        id
    }

    /// A symbol's info.
    pub fn get(&self, id: SymId) -> &SymbolInfo<'ctx> {
        &self.symbols[id.0 as usize]
    }

    /// Display name of any [`Sym`]: `i<L>` for induction variables.
    pub fn name(&self, s: Sym) -> String {
        match s {
            Sym::Iv(l) => format!("i{}", l.0),
            Sym::Param(p) => self
                .symbols
                .get(p.0 as usize)
                .map(|s| s.name.clone())
                .unwrap_or_else(|| format!("s{}", p.0)),
        }
    }
}
