use std::sync::Arc;

use super::*;

/// A TBasket kept in the tree object, holding `entries` fixed-size entries of `data`.
fn kept(entries: i64, data: &[u8]) -> Option<Arc<Object>> {
    Some(Arc::new(Object {
        class: "TBasket".into(),
        version: 3,
        offset: 0,
        members: vec![
            ("fNevBuf".into(), Value::Int(entries)),
            ("fKeylen".into(), Value::Int(0)),
            ("fData".into(), Value::Bytes(data.to_vec())),
        ],
        spans: Vec::new(),
    }))
}

/// A branch object whose `fBaskets` slots are `slots`.
fn branch(slots: Vec<Option<Arc<Object>>>) -> Object {
    Object {
        class: "TBranch".into(),
        version: 13,
        offset: 0,
        members: vec![("fBaskets".into(), Value::Objects(slots))],
        spans: Vec::new(),
    }
}

fn ranges(baskets: &[BasketInfo]) -> Vec<(u64, u64, Option<usize>)> {
    baskets
        .iter()
        .map(|b| (b.first_entry, b.end_entry, b.embedded))
        .collect()
}

#[test]
fn written_and_kept_baskets_follow_each_other() {
    // Basket 0 on disk, basket 1 (the one being filled) kept in the tree object.
    let o = branch(vec![None, kept(2, &[7, 8])]);
    let (baskets, kept) = basket_list(&o, 5, 1, [&[100, 0], &[40, 0], &[0, 3]], 1000).unwrap();
    assert_eq!(ranges(&baskets), [(0, 3, None), (3, 5, Some(0))]);
    assert_eq!((baskets[0].seek, baskets[0].bytes), (100, 40));
    assert_eq!(kept[0].data, [7, 8]);
}

#[test]
fn unwritten_baskets_are_taken_from_their_slots() {
    // Both baskets were never written (seek 0): slot i of fBaskets is basket i.
    let o = branch(vec![kept(3, &[1, 2, 3]), kept(2, &[4, 5])]);
    let (baskets, kept) = basket_list(&o, 5, 1, [&[0, 0], &[0, 0], &[0, 3]], 1000).unwrap();
    assert_eq!(ranges(&baskets), [(0, 3, Some(0)), (3, 5, Some(1))]);
    assert_eq!(kept[0].data, [1, 2, 3]);
    assert_eq!(kept[1].data, [4, 5]);
}

#[test]
fn kept_baskets_that_do_not_fit_are_errors() {
    let o = branch(vec![kept(2, &[1, 2]), kept(2, &[4, 5])]);
    let err = basket_list(&o, 5, 1, [&[0, 0], &[0, 0], &[0, 3]], 1000).unwrap_err();
    assert!(
        err.contains("embedded basket 0 of 2 entries stands for entries 0..3"),
        "{err}"
    );
    let o = branch(vec![None, kept(4, &[4, 5, 6, 7])]);
    let err = basket_list(&o, 5, 1, [&[100, 0], &[40, 0], &[0, 3]], 1000).unwrap_err();
    assert!(
        err.contains("embedded basket of 4 entries after entry 3 of 5"),
        "{err}"
    );
}

#[test]
fn baskets_past_the_file_end_are_errors() {
    let o = branch(vec![]);
    let err = basket_list(&o, 5, 1, [&[990, 0], &[40, 0], &[0, 5]], 1000).unwrap_err();
    assert!(err.contains("basket 0 at 990 (40 bytes)"), "{err}");
}
