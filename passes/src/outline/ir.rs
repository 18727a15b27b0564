//! Small IR-building helpers the executor form and the passes built on it
//! share: deleting unreachable blocks, the iteration type, function pointers,
//! an `if` around generated code, entry-block allocas.

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::llvm_sys::core::{LLVMGetPoison, LLVMReplaceAllUsesWith, LLVMTypeOf};
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue, IntValue, PointerValue};

use crate::error::Result;
use crate::util;

/// Deletes blocks that are no longer reachable (uses among them are dropped first).
pub fn delete_blocks(blocks: &[BasicBlock<'_>]) {
    // SAFETY: the blocks are unreachable; values they define are only used
    // inside them, so replacing those uses with poison and erasing is sound.
    unsafe {
        for bb in blocks {
            for i in util::instructions(*bb) {
                let r = i.as_value_ref();
                if util::basic_value(r).is_some() {
                    LLVMReplaceAllUsesWith(r, LLVMGetPoison(LLVMTypeOf(r)));
                }
            }
        }
        for bb in blocks {
            for i in util::instructions(*bb).into_iter().rev() {
                i.erase_from_basic_block();
            }
        }
        for bb in blocks {
            let _ = bb.delete();
        }
    }
}

/// The normalised-iteration type used by every executor call.
pub fn iter_type<'ctx>(module: &Module<'ctx>) -> inkwell::types::IntType<'ctx> {
    module.get_context().i64_type()
}

/// The address of a function as a pointer value (for passing bodies to the runtime).
pub fn fn_ptr<'ctx>(f: FunctionValue<'ctx>) -> PointerValue<'ctx> {
    f.as_global_value().as_pointer_value()
}

/// `if (cond) { then }` at the builder's position (which must be right
/// before its block's terminator); the builder ends before that terminator
/// in the continuation block.
pub fn emit_if<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    cond: IntValue<'ctx>,
    name: &str,
    then: impl FnOnce(&Builder<'ctx>) -> Result<()>,
) -> Result<()> {
    let cx = module.get_context();
    let cur = b
        .get_insert_block()
        .ok_or_else(|| crate::error::PassError::Internal("builder not positioned".into()))?;
    let term = cur
        .get_terminator()
        .ok_or_else(|| crate::error::PassError::Internal("block without terminator".into()))?;
    let then_bb = cx.insert_basic_block_after(cur, name);
    let cont = cx.insert_basic_block_after(then_bb, &format!("{name}.cont"));
    term.remove_from_basic_block();
    b.position_at_end(cur);
    b.build_conditional_branch(cond, then_bb, cont)?;
    b.position_at_end(then_bb);
    then(b)?;
    b.build_unconditional_branch(cont)?;
    b.position_at_end(cont);
    b.insert_instruction(&term, None);
    b.position_before(&term);
    Ok(())
}

/// An outlining error with message `m`.
pub(super) fn util_err(m: &str) -> crate::error::PassError {
    crate::error::PassError::Internal(format!("outlining: {m}"))
}
