//! The parallel writer reuses the memory of its written clusters: once the budget is
//! reached, writing more data allocates (almost) nothing new, and clusters stay as large
//! as the budget allows. Fresh memory costs a page fault and zeroing per 4 KiB; taken by
//! several threads at once it also contends in the kernel.
//!
//! This file is its own test binary, so the counting allocator below sees only this test.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rootweave::container::{FileWriter, WriterOptions};
use rootweave::io::MemoryFile;
use rootweave::rntuple::{
    ColumnData, Field, FieldType, RNTupleParallelOptions, RNTupleParallelWriter,
};

/// The system allocator, counting the bytes it hands out.
struct CountingAllocator;

static ALLOCATED: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards its arguments unchanged to the system allocator, which
// upholds GlobalAlloc's contract; the counter is an atomic add with no other effect.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size as u64, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[test]
fn written_clusters_memory_is_reused_under_memory_pressure() {
    // One test, so that no other test allocates meanwhile: unordered batches cut into
    // clusters by the budget, then ordered ones (a cluster per sequence number).
    written_clusters_memory_is_reused(false, 20_000);
    written_clusters_memory_is_reused(true, 5_000);
}

fn written_clusters_memory_is_reused(ordered: bool, entries_per_batch: usize) {
    // 100 float columns under an 8 MiB budget: the page buffers (32 KiB per column) and
    // one cluster fill the budget, so every cluster is cut by it.
    let columns = 100;
    let fields: Vec<Field> = (0..columns)
        .map(|i| Field::new(format!("f{i}"), FieldType::Float32))
        .collect();
    let file = Arc::new(
        FileWriter::with_backend(
            Arc::new(MemoryFile::new()),
            "reuse.root",
            WriterOptions::default(),
        )
        .unwrap(),
    );
    let budget = 8u64 << 20;
    let options = RNTupleParallelOptions::default()
        .with_memory_budget(budget)
        .with_ordered(ordered);
    let writer = RNTupleParallelWriter::in_file(file, "reuse", fields, options).unwrap();
    let values: Vec<f32> = (0..entries_per_batch).map(|i| i as f32 * 0.5).collect();
    let batch: Vec<ColumnData> = (0..columns).map(|_| ColumnData::Float32(&values)).collect();
    let batch_bytes = (columns * entries_per_batch * 4) as u64;
    let mut context = writer.context();
    let batches = 160_000_000 / batch_bytes as usize;
    let mut allocated_in_second_half = 0;
    for round in 0..batches {
        let before = ALLOCATED.load(Ordering::Relaxed);
        if ordered {
            context.extend_sequence(round as u64, &batch).unwrap();
        } else {
            context.extend(&batch).unwrap();
        }
        if round >= batches / 2 {
            allocated_in_second_half += ALLOCATED.load(Ordering::Relaxed) - before;
        }
    }
    drop(context);
    let peak = writer.budget().peak();
    let summary = writer.close().unwrap();
    let written_in_second_half = batch_bytes * (batches - batches / 2) as u64;
    // 80 MB written in the second half, 8 MB per cluster at most: without reuse every
    // byte of it would be allocated twice (page buffers and segments).
    assert!(
        allocated_in_second_half * 20 < written_in_second_half,
        "ordered {ordered}: {allocated_in_second_half} bytes allocated while writing {written_in_second_half}"
    );
    assert!(peak <= budget, "peak {peak} over the budget {budget}");
    assert_eq!(summary.entries, (batches * entries_per_batch) as u64);
    // Clusters as large as the budget lets them be: never more than one per 3 MB (in
    // ordered mode one per batch).
    let data_bytes = batch_bytes * batches as u64;
    let most_clusters = if ordered {
        batches as u64
    } else {
        data_bytes / (3 << 20)
    };
    assert!(
        summary.clusters <= most_clusters,
        "{} clusters for {data_bytes} bytes",
        summary.clusters
    );
}
