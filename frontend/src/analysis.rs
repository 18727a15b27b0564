//! The analysis of a function and of a module: the bundle every pass reads.

use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;

use crate::access::{self, Access, AccessClass};
use crate::cfg::Cfg;
use crate::deps::{self, LoopDeps};
use crate::expr::Poly;
use crate::iv::{Evaluator, LoopIvs};
use crate::loops::{LoopForest, LoopId};
use crate::regions::{self, Regions};
use crate::symbols::SymbolTable;

/// Everything known about one function's loops.
pub struct FunctionAnalysis<'ctx> {
    /// The function.
    pub function: FunctionValue<'ctx>,
    /// Its name.
    pub name: String,
    /// CFG and dominators.
    pub cfg: Cfg<'ctx>,
    /// Loop forest.
    pub forest: LoopForest,
    /// Symbols of all expressions.
    pub symbols: SymbolTable<'ctx>,
    /// IVs and trip counts, indexed by [`LoopId`].
    pub ivs: Vec<LoopIvs<'ctx>>,
    /// Loads and stores inside loops.
    pub accesses: Vec<Access<'ctx>>,
    /// Dependence verdicts, indexed by [`LoopId`].
    pub deps: Vec<LoopDeps<'ctx>>,
    /// Parallel-region candidates (ch. 4) and affine nests (ch. 5).
    pub regions: Regions,
}

impl<'ctx> FunctionAnalysis<'ctx> {
    /// Analyses one function with a body (`None` for declarations).
    pub fn new(f: FunctionValue<'ctx>, td: &TargetData) -> Option<FunctionAnalysis<'ctx>> {
        let cfg = Cfg::new(f)?;
        let forest = LoopForest::new(&cfg);
        let (symbols, ivs, accesses) = {
            let mut ev = Evaluator::new(&cfg, &forest, td);
            let accesses = access::collect(f, &cfg, &forest, &mut ev, td);
            (ev.symbols, ev.loop_ivs, accesses)
        };
        let deps = deps::analyze(f, &cfg, &forest, &symbols, &ivs, &accesses);
        let regions = regions::find(&cfg, &forest, &accesses, &deps, f);
        Some(FunctionAnalysis {
            function: f,
            name: f.get_name().to_string_lossy().into_owned(),
            cfg,
            forest,
            symbols,
            ivs,
            accesses,
            deps,
            regions,
        })
    }

    /// IV info of a loop.
    pub fn loop_ivs(&self, l: LoopId) -> &LoopIvs<'ctx> {
        &self.ivs[l.index()]
    }

    /// Accesses whose innermost loop is `l`.
    pub fn accesses_in(&self, l: LoopId) -> impl Iterator<Item = &Access<'ctx>> {
        self.accesses.iter().filter(move |a| a.loop_id == Some(l))
    }

    /// Accesses inside `l` or any loop nested in it.
    pub fn accesses_within(&self, l: LoopId) -> impl Iterator<Item = &Access<'ctx>> {
        self.accesses.iter().filter(move |a| {
            a.loop_id
                .map(|m| self.forest.encloses(l, m))
                .unwrap_or(false)
        })
    }

    /// The reference of an affine access in the form of dissertation §5.5.1,
    /// `r = A i + o` flattened to one dimension: the coefficient (in bytes) of
    /// each enclosing loop's IV, outermost first, and the byte offset.
    /// `None` for indirect or unknown accesses.
    pub fn reference(&self, a: &Access<'ctx>) -> Option<Reference> {
        let AccessClass::Affine { offset } = &a.class else {
            return None;
        };
        let nest = a.loop_id.map(|l| {
            let mut v = self.forest.ancestors(l);
            v.reverse();
            v
        })?;
        let mut rest = offset.clone();
        let mut coefficients = Vec::with_capacity(nest.len());
        for l in nest {
            let (c, r) = rest.split_iv(l);
            coefficients.push((l, c));
            rest = r;
        }
        if !rest.ivs().is_empty() {
            return None;
        }
        Some(Reference {
            coefficients,
            offset: rest,
        })
    }

    /// Values defined outside loop `l` (instructions and arguments) that
    /// instructions inside it use, in first-use order: what an outlined loop
    /// body needs passed in.
    pub fn live_ins(&self, l: LoopId) -> Vec<inkwell::values::BasicValueEnum<'ctx>> {
        let lp = self.forest.get(l);
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for b in &lp.blocks {
            let mut inst = self.cfg.block(*b).get_first_instruction();
            while let Some(i) = inst {
                inst = i.get_next_instruction();
                for v in crate::ir::value_operands(i) {
                    let outside = match crate::ir::as_instruction(v) {
                        Some(d) => d
                            .get_parent()
                            .and_then(|bb| self.cfg.id(bb))
                            .map(|bb| !lp.contains(bb))
                            .unwrap_or(true),
                        None => crate::ir::is_argument(v),
                    };
                    if outside && seen.insert(crate::ir::ValueKey::of(&v)) {
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    /// Instructions inside loop `l` used outside it (the loop's results).
    pub fn live_outs(&self, l: LoopId) -> Vec<inkwell::values::InstructionValue<'ctx>> {
        let lp = self.forest.get(l);
        let mut out = Vec::new();
        for b in &lp.blocks {
            let mut inst = self.cfg.block(*b).get_first_instruction();
            while let Some(i) = inst {
                inst = i.get_next_instruction();
                let escapes = crate::ir::users(&i).into_iter().any(|u| {
                    u.get_parent()
                        .and_then(|bb| self.cfg.id(bb))
                        .map(|bb| !lp.contains(bb))
                        .unwrap_or(true)
                });
                if escapes {
                    out.push(i);
                }
            }
        }
        out
    }

    /// Renders a poly with this function's symbol names.
    pub fn render(&self, p: &crate::expr::Poly) -> String {
        p.render(&|s| self.symbols.name(s))
    }
}

/// An affine reference `offset + sum(coefficient_l * i_l)` (bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Coefficient of each enclosing loop's IV, outermost first (may be symbolic).
    pub coefficients: Vec<(LoopId, Poly)>,
    /// Part independent of the IVs.
    pub offset: Poly,
}

/// The analysis of every defined function of a module.
pub struct ModuleAnalysis<'ctx> {
    /// Functions with bodies, in module order.
    pub functions: Vec<FunctionAnalysis<'ctx>>,
}

impl<'ctx> ModuleAnalysis<'ctx> {
    /// Analyses every function with a body.
    pub fn new(module: &Module<'ctx>) -> ModuleAnalysis<'ctx> {
        let td = TargetData::create(module.get_data_layout().as_str().to_str().unwrap_or(""));
        let functions = module
            .get_functions()
            .filter_map(|f| FunctionAnalysis::new(f, &td))
            .collect();
        ModuleAnalysis { functions }
    }

    /// The analysis of a named function.
    pub fn function(&self, name: &str) -> Option<&FunctionAnalysis<'ctx>> {
        self.functions.iter().find(|f| f.name == name)
    }
}
