//! Baskets kept in another file than the tree's (`TBranch::fFileName`, as ALICE keeps its
//! ESD friends): the file is found beside the tree's file, opened once when first read,
//! and only the branches whose file is missing are unreadable.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::container::RootFile;
use crate::error::{Error, Result};
use crate::ttree::model::Branch;

/// The other files a tree's branches keep baskets in, opened as they are first read.
#[derive(Default)]
pub(super) struct OtherFiles {
    open: Mutex<HashMap<String, Arc<RootFile>>>,
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

/// Why `branch` of a tree in `tree_file` cannot be read, if its baskets are in another
/// local file that does not exist (a remote one is tried when it is read).
pub(super) fn missing(tree_file: &str, branch: &Branch) -> Option<String> {
    if branch.file_name.is_empty() || !has_stored_baskets(branch) {
        return None;
    }
    let path = resolve(tree_file, &branch.file_name);
    (!path.contains("://") && !std::path::Path::new(&path).exists()).then(|| {
        format!(
            "its baskets are kept in '{}', which is not found ({path})",
            branch.file_name
        )
    })
}

impl OtherFiles {
    /// The file holding `branch`'s baskets, for a tree in `tree_file` named `tree`.
    pub(super) fn get(
        &self,
        tree_file: &str,
        tree: &str,
        branch: &Branch,
    ) -> Result<Arc<RootFile>> {
        let path = resolve(tree_file, &branch.file_name);
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(file) = open.get(&path) {
            return Ok(file.clone());
        }
        let file = RootFile::open(&path).map_err(|e| Error::Unsupported {
            file: tree_file.to_string(),
            what: format!(
                "TTree '{tree}' branch '{}': its baskets are kept in '{}', which cannot be opened: {e}",
                branch.name, branch.file_name
            ),
        })?;
        let file = Arc::new(file);
        open.insert(path, file.clone());
        Ok(file)
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
