//! Whole-file tools as calls: merging files as `hadd` does, and recovering a file whose
//! writer was killed or that was cut short.

use std::ffi::c_char;
use std::path::{Path, PathBuf};

use rootweave::merge::{merge, MergeOptions};
use rootweave::recover::recover;

use crate::status::{guard, rw_status, text, Failure};

/// Merges the files `inputs` (`n_inputs` of them) into a new file at `output`, as ROOT's
/// `hadd` does: TTrees and RNTuples of the same path are joined, input after input
/// (their baskets and pages copied as they are stored), histograms added, directories
/// merged, other objects taken from the first input that has them. The output is written
/// under a temporary name and renamed once complete, so a failed merge leaves no output;
/// an output that exists already is not overwritten (`RW_INVALID_ARGUMENT`). Trees of
/// different branches or RNTuples of different fields are an error naming both files.
///
/// # Safety
/// `output` a NUL-terminated string; `inputs` `n_inputs` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn rw_merge(
    output: *const c_char,
    inputs: *const *const c_char,
    n_inputs: usize,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helper.
        let output = unsafe { text(output, "output path")? };
        if n_inputs > 0 && inputs.is_null() {
            return Err(Failure::invalid("the input paths are null"));
        }
        let inputs = (0..n_inputs)
            .map(|i| {
                // SAFETY: `inputs` holds `n_inputs` strings, as the caller promises.
                let path = unsafe { text(*inputs.add(i), &format!("input path {i}"))? };
                Ok(PathBuf::from(path))
            })
            .collect::<Result<Vec<_>, Failure>>()?;
        merge(output, &inputs, &MergeOptions::default())?;
        Ok(())
    })
}

/// Recovers the file at `input`, whose writer was killed or which was cut short, into a
/// new file at `output` (which may be `input`: it is then replaced once the recovered file
/// is complete). Every record whose bytes are whole is kept: each RNTuple with the
/// clusters whose pages are all whole, each TTree with its last save and the whole
/// baskets after it that every branch reaches, the other objects as last written.
/// `*entries_or_null` (may be null) receives the entries kept, summed over every RNTuple
/// and TTree of the file. The input is never changed; a failure leaves no output.
///
/// # Safety
/// `input` and `output` NUL-terminated strings; `entries_or_null` null or valid for a
/// write.
#[no_mangle]
pub unsafe extern "C" fn rw_recover(
    input: *const c_char,
    output: *const c_char,
    entries_or_null: *mut u64,
) -> rw_status {
    guard(|| {
        // SAFETY: the caller's promises, checked for null by the helper.
        let (input, output) = unsafe { (text(input, "input path")?, text(output, "output path")?) };
        let report = recover(Path::new(input), Path::new(output))?;
        let entries = report.ntuples.iter().map(|n| n.entries).sum::<u64>()
            + report.trees.iter().map(|t| t.entries).sum::<u64>();
        if !entries_or_null.is_null() {
            // SAFETY: non-null and valid for a write, as the caller promises.
            unsafe { entries_or_null.write(entries) };
        }
        Ok(())
    })
}
