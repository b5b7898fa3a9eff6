//! Baskets kept in another file than the tree's (`TBranch::fFileName`, as ALICE keeps its
//! ESD friends): the file is found beside the tree's file (local or remote), opened once
//! when first needed, and only the branches whose file cannot be opened are unreadable.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::ttree::model::Branch;

/// The other files a tree's branches keep baskets in, opened when first needed: each
/// path's outcome (the file, or why it cannot be opened) is kept.
#[derive(Default)]
pub(super) struct OtherFiles {
    open: Mutex<HashMap<String, std::result::Result<Arc<RootFile>, String>>>,
}

/// Where a branch's `file_name` is for a tree in the file `tree_file`: as it is if it is
/// absolute or a URL, else beside the tree's file (as ROOT resolves it).
pub(super) fn resolve(tree_file: &str, file_name: &str) -> String {
    if file_name.starts_with('/') || file_name.contains("://") {
        return file_name.to_string();
    }
    match tree_file.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/{file_name}"),
        None => file_name.to_string(),
    }
}

/// True if the branch has baskets stored in a file (not kept in the tree object).
fn has_stored_baskets(branch: &Branch) -> bool {
    branch
        .baskets
        .iter()
        .any(|b| b.embedded.is_none() && b.end_entry > b.first_entry)
}

impl OtherFiles {
    /// Why `branch` of the tree `tree` in `tree_file` cannot be read, if its baskets are
    /// in another file that cannot be opened (tried once; the outcome is kept).
    pub(super) fn unavailable(
        &self,
        tree_file: &str,
        tree: &str,
        branch: &Branch,
    ) -> Option<String> {
        if branch.file_name.is_empty() || !has_stored_baskets(branch) {
            return None;
        }
        self.get(tree_file, tree, branch).err().map(|e| match e {
            Error::Unsupported { what, .. } => what,
            other => other.to_string(),
        })
    }

    /// The file holding `branch`'s baskets, for a tree in `tree_file` named `tree`.
    pub(super) fn get(
        &self,
        tree_file: &str,
        tree: &str,
        branch: &Branch,
    ) -> Result<Arc<RootFile>> {
        let path = resolve(tree_file, &branch.file_name);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let outcome = open.entry(path.clone()).or_insert_with(|| {
            RootFile::open(&path)
                .map(Arc::new)
                .map_err(|e| e.to_string())
        });
        outcome.clone().map_err(|e| Error::Unsupported {
            file: tree_file.to_string(),
            what: format!(
                "TTree '{tree}' branch '{}': its baskets are kept in '{}', which cannot be opened: {e}",
                branch.name, branch.file_name
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_files_are_found_beside_the_tree_s_file() {
        assert_eq!(
            resolve("/data/run1/AliESDs.root", "AliESDfriends.root"),
            "/data/run1/AliESDfriends.root"
        );
        assert_eq!(resolve("AliESDs.root", "f.root"), "f.root");
        assert_eq!(
            resolve("root://eos.cern.ch//a/b.root", "f.root"),
            "root://eos.cern.ch//a/f.root"
        );
        assert_eq!(resolve("/a/b.root", "/c/f.root"), "/c/f.root");
        assert_eq!(resolve("/a/b.root", "https://h/f.root"), "https://h/f.root");
    }
}
