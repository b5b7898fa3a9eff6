//! `rootweave ls`: the keys of a ROOT file, every directory's (histograms with their
//! entries and axes), and for each RNTuple its entries, clusters and fields (C++ type,
//! column encodings, stored and uncompressed bytes).

use std::path::Path;
use std::sync::Arc;

use rootweave::container::RootFile;
use rootweave::rntuple::read::{Descriptor, OpenOptions};

use crate::show::rntuple::describe;
use crate::show::{objects, ttree_list};
use rootweave::Result;

/// The listing of the file at `path`.
pub fn list(path: &Path) -> Result<String> {
    let file = Arc::new(RootFile::open(path)?);
    let mut out = String::new();
    objects::list_keys(&file, &mut out)?;
    for key in file.keys() {
        if key.class_name == "ROOT::RNTuple" {
            let name = format!("{};{}", key.name, key.cycle);
            let d = Descriptor::open(&file, &name, OpenOptions::default())?;
            describe(&file, &d, &mut out)?;
        }
    }
    ttree_list::describe_trees(&file, &mut out)?;
    Ok(out)
}
