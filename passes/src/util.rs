//! Small IR helpers the passes share: operand access that never aborts on
//! non-first-class operands, use lists, predecessor maps, target data, name globs.
//! Operand reads go through `llvm-sys` after checking the operand's kind, as
//! in the frontend's `ir` module (whose helpers are re-exported here).

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core::{
    LLVMGetFirstUse, LLVMGetNextUse, LLVMGetNumOperands, LLVMGetOperand, LLVMGetUser,
    LLVMIsAInstruction, LLVMSetOperand,
};
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, InstructionValue};

pub use weft_frontend::ir::{
    as_instruction, callee_name, cond_branch, is_pure_intrinsic, successors, users, value_operand,
    value_operands, ValueKey,
};

/// A raw value as `BasicValueEnum` when it is first-class (never aborts on
/// labels, tokens or metadata).
///
/// Contract: `v` is null or a value of a live LLVM context (every caller
/// passes operands read from live instructions); a safe function because the
/// passes hold such handles only while their module lives.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn basic_value<'ctx>(
    v: inkwell::llvm_sys::prelude::LLVMValueRef,
) -> Option<BasicValueEnum<'ctx>> {
    use inkwell::llvm_sys::core::{LLVMGetTypeKind, LLVMTypeOf};
    use inkwell::llvm_sys::LLVMTypeKind as K;
    if v.is_null() {
        return None;
    }
    // SAFETY: `v` is a live value.
    let kind = unsafe { LLVMGetTypeKind(LLVMTypeOf(v)) };
    let ok = matches!(
        kind,
        K::LLVMFloatTypeKind
            | K::LLVMFP128TypeKind
            | K::LLVMDoubleTypeKind
            | K::LLVMHalfTypeKind
            | K::LLVMBFloatTypeKind
            | K::LLVMX86_FP80TypeKind
            | K::LLVMPPC_FP128TypeKind
            | K::LLVMIntegerTypeKind
            | K::LLVMStructTypeKind
            | K::LLVMPointerTypeKind
            | K::LLVMArrayTypeKind
            | K::LLVMVectorTypeKind
    );
    // SAFETY: checked non-null and first-class.
    ok.then(|| unsafe { BasicValueEnum::new(v) })
}

/// Identity key of any value or block.
pub fn key<V: AsValueRef>(v: &V) -> ValueKey {
    ValueKey::of(v)
}

/// Identity key of a basic block.
pub fn bkey(b: BasicBlock<'_>) -> usize {
    b.as_mut_ptr() as usize
}

/// The first-class type an instruction produces, if any.
pub fn basic_type_of<'ctx>(i: InstructionValue<'ctx>) -> Option<BasicTypeEnum<'ctx>> {
    basic_value(i.as_value_ref()).map(|v: BasicValueEnum<'ctx>| v.get_type())
}

/// Predecessor lists of every block of `f`, keyed by [`bkey`].
pub fn predecessors<'ctx>(f: FunctionValue<'ctx>) -> HashMap<usize, Vec<BasicBlock<'ctx>>> {
    let mut m: HashMap<usize, Vec<BasicBlock<'ctx>>> = HashMap::new();
    for b in f.get_basic_blocks() {
        if let Some(t) = b.get_terminator() {
            for s in successors(t) {
                let e = m.entry(bkey(s)).or_default();
                if !e.contains(&b) {
                    e.push(b);
                }
            }
        }
    }
    m
}

/// The module's target data (from its data layout string).
pub fn target_data(module: &Module<'_>) -> TargetData {
    TargetData::create(module.get_data_layout().as_str().to_str().unwrap_or(""))
}

/// Replaces, in instruction `user`, every operand equal to `from` by `to`.
pub fn replace_operand(user: InstructionValue<'_>, from: &dyn AsValueRef, to: &dyn AsValueRef) {
    let f = from.as_value_ref();
    // SAFETY: live instruction; indices are bounded by its operand count and
    // `to` has the same type as `from` (callers guarantee it).
    unsafe {
        let n = LLVMGetNumOperands(user.as_value_ref()).max(0) as u32;
        for i in 0..n {
            if LLVMGetOperand(user.as_value_ref(), i) == f {
                LLVMSetOperand(user.as_value_ref(), i, to.as_value_ref());
            }
        }
    }
}

/// Instructions using `v` (each once).
pub fn unique_users<'ctx>(v: &dyn AsValueRef) -> Vec<InstructionValue<'ctx>> {
    let mut out: Vec<InstructionValue<'ctx>> = Vec::new();
    // SAFETY: walking a live value's use list; users are checked to be instructions.
    unsafe {
        let mut u = LLVMGetFirstUse(v.as_value_ref());
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !user.is_null() && !LLVMIsAInstruction(user).is_null() {
                let iv = InstructionValue::new(user);
                if !out.contains(&iv) {
                    out.push(iv);
                }
            }
            u = LLVMGetNextUse(u);
        }
    }
    out
}

/// Shell-style glob with `*` and `?`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &s[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// Strips GEPs and casts (instructions and constant expressions) off a pointer.
pub fn underlying_object(p: BasicValueEnum<'_>) -> BasicValueEnum<'_> {
    use inkwell::llvm_sys::core::{LLVMGetConstOpcode, LLVMGetOperand, LLVMIsAConstantExpr};
    use inkwell::llvm_sys::LLVMOpcode;
    use inkwell::values::InstructionOpcode;
    let mut cur = p;
    for _ in 0..32 {
        let r = cur.as_value_ref();
        let next = if let Some(i) = as_instruction(cur) {
            match i.get_opcode() {
                InstructionOpcode::GetElementPtr
                | InstructionOpcode::BitCast
                | InstructionOpcode::AddrSpaceCast => value_operand(i, 0),
                _ => None,
            }
        } else {
            // SAFETY: live value; operand 0 of a GEP/cast constant expression exists.
            unsafe {
                if !LLVMIsAConstantExpr(r).is_null()
                    && matches!(
                        LLVMGetConstOpcode(r),
                        LLVMOpcode::LLVMGetElementPtr
                            | LLVMOpcode::LLVMBitCast
                            | LLVMOpcode::LLVMAddrSpaceCast
                    )
                {
                    basic_value(LLVMGetOperand(r, 0))
                } else {
                    None
                }
            }
        };
        match next {
            Some(n) => cur = n,
            None => break,
        }
    }
    cur
}

/// The instructions of a block, in order.
pub fn instructions<'ctx>(b: BasicBlock<'ctx>) -> Vec<InstructionValue<'ctx>> {
    let mut v = Vec::new();
    let mut cur = b.get_first_instruction();
    while let Some(i) = cur {
        v.push(i);
        cur = i.get_next_instruction();
    }
    v
}

/// Runs LLVM's own passes (new pass manager syntax) over the module, e.g.
/// `loop-simplify`, the canonicalisation the executor form needs (preheaders,
/// dedicated exits), which clang's `-O1` output does not always keep.
///
/// No target machine: the passes weft runs are target-independent, and
/// building one (X86's lowering and legaliser tables, about 5% of `weft opt`
/// on a small file) is skipped; `LLVMRunPasses` accepts a null machine.
pub fn run_llvm_passes(module: &Module<'_>, passes: &str) -> crate::error::Result<()> {
    use inkwell::llvm_sys::error::{LLVMDisposeErrorMessage, LLVMGetErrorMessage};
    use inkwell::llvm_sys::transforms::pass_builder::{
        LLVMCreatePassBuilderOptions, LLVMDisposePassBuilderOptions, LLVMRunPasses,
    };
    let text =
        std::ffi::CString::new(passes).map_err(|_| crate::error::PassError::BadPipeline {
            pipeline: passes.to_string(),
            message: "contains a NUL byte".into(),
        })?;
    // SAFETY: the module reference is valid for the call, the options are
    // created and disposed here, the error (if any) is read and disposed once.
    let msg = unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err = LLVMRunPasses(
            module.as_mut_ptr(),
            text.as_ptr(),
            std::ptr::null_mut(),
            opts,
        );
        LLVMDisposePassBuilderOptions(opts);
        if err.is_null() {
            None
        } else {
            let m = LLVMGetErrorMessage(err);
            let s = std::ffi::CStr::from_ptr(m).to_string_lossy().into_owned();
            LLVMDisposeErrorMessage(m);
            Some(s)
        }
    };
    match msg {
        None => Ok(()),
        Some(e) => Err(crate::error::PassError::Llvm(format!(
            "running `{passes}`: {e}"
        ))),
    }
}

/// Names of the functions annotated with `tag` in `@llvm.global.annotations`
/// (what clang emits for `__attribute__((annotate("tag")))`: an array of
/// `{ ptr function, ptr string, ptr file, i32 line, ptr args }`). Entries of
/// another form are skipped.
pub fn annotated_functions(module: &Module<'_>, tag: &str) -> std::collections::HashSet<String> {
    use inkwell::llvm_sys::core::{LLVMIsAConstantDataSequential, LLVMIsAGlobalVariable};
    use inkwell::values::GlobalValue;
    let mut out = std::collections::HashSet::new();
    let Some(init) = module
        .get_global("llvm.global.annotations")
        .and_then(|g| g.get_initializer())
    else {
        return out;
    };
    let init = init.as_value_ref();
    // SAFETY (every block below): the handles are read from the module's live
    // global initializer, within `LLVMGetNumOperands`, and checked for their
    // kind before they are wrapped.
    for i in 0..unsafe { LLVMGetNumOperands(init) }.max(0) as u32 {
        let entry = unsafe { LLVMGetOperand(init, i) };
        if entry.is_null() || unsafe { LLVMGetNumOperands(entry) } < 2 {
            continue;
        }
        let (f, s) = unsafe { (LLVMGetOperand(entry, 0), LLVMGetOperand(entry, 1)) };
        let Some(f) = (unsafe { FunctionValue::new(f) }) else {
            continue;
        };
        if s.is_null() || unsafe { LLVMIsAGlobalVariable(s) }.is_null() {
            continue;
        }
        let tagged = match unsafe { GlobalValue::new(s) }.get_initializer() {
            Some(BasicValueEnum::ArrayValue(a))
                if !unsafe { LLVMIsAConstantDataSequential(a.as_value_ref()) }.is_null() =>
            {
                a.as_const_string()
                    .is_some_and(|b| b.strip_suffix(&[0]).unwrap_or(b) == tag.as_bytes())
            }
            _ => false,
        };
        if tagged {
            out.insert(f.get_name().to_string_lossy().into_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("kernel_*", "kernel_spmv"));
        assert!(glob_match("*", ""));
        assert!(glob_match("k?rn*l", "kernel"));
        assert!(!glob_match("kernel_*", "main"));
        assert!(glob_match("*.weft.body.*", "f.weft.body.0"));
    }
}

/// An `alloca` in the entry block of the function holding `b`'s insertion
/// point (so loops around the insertion point do not grow the stack).
pub fn entry_alloca<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    ty: inkwell::types::BasicTypeEnum<'ctx>,
    name: &str,
) -> crate::error::Result<inkwell::values::PointerValue<'ctx>> {
    let f = b
        .get_insert_block()
        .and_then(|bb| bb.get_parent())
        .ok_or_else(|| {
            crate::error::PassError::Internal(
                "entry alloca: builder not positioned in a function".into(),
            )
        })?;
    let entry = f.get_first_basic_block().ok_or_else(|| {
        crate::error::PassError::Internal("entry alloca: function without entry block".into())
    })?;
    let eb = module.get_context().create_builder();
    match entry.get_first_instruction() {
        Some(i) => eb.position_before(&i),
        None => eb.position_at_end(entry),
    }
    Ok(eb.build_alloca(ty, name)?)
}
