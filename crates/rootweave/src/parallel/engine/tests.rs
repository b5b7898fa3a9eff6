//! The engine alone, over a toy format whose clusters are lists of numbers: order,
//! budget, skipped and empty sequence numbers, panicking producers and failed writes.

use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use super::*;

/// A value whose cluster the toy sink fails to write.
const UNWRITABLE: u32 = u32::MAX;

/// A context's numbers, 4 bytes each.
struct Numbers(Vec<u32>);

impl ContextBuffers for Numbers {
    type Cluster = Vec<u32>;
    fn entries(&self) -> u64 {
        self.0.len() as u64
    }
    fn held_bytes(&self) -> u64 {
        4 * self.0.capacity() as u64
    }
    fn fill_level(&self) -> FillLevel {
        let bytes = 4 * self.0.len() as u64;
        FillLevel {
            sealed: 0,
            pending: bytes,
            uncompressed: bytes,
        }
    }
    fn growth_bound(&self, data_bytes: u64) -> u64 {
        data_bytes
    }
    fn set_buffer_size(&mut self, _size: usize) {}
    fn release_memory(&mut self) {
        self.0 = Vec::new();
    }
    fn discard(&mut self) {
        self.0 = Vec::new();
    }
}

/// Clusters in the order they were recorded, and the writes that ended.
#[derive(Default)]
struct Toy {
    target: u64,
    recorded: Mutex<Vec<Vec<u32>>>,
    written: Mutex<usize>,
}

impl ClusterSink for Toy {
    type Buffers = Numbers;
    type Recorded = Vec<Vec<u32>>;
    fn buffer_size(&self, _filling: usize) -> usize {
        4096
    }
    fn new_buffers(&self, _filling: usize) -> (Numbers, usize) {
        (Numbers(Vec::new()), 4096)
    }
    fn compression_ratio(&self) -> f64 {
        1.0
    }
    fn cluster_bounds(&self, _size: usize) -> (u64, u64) {
        (self.target, 0)
    }
    fn seal(&self, buffers: &mut Numbers) -> Result<Vec<u32>> {
        Ok(std::mem::take(&mut buffers.0))
    }
    fn record<'w>(
        &self,
        clusters: Vec<Vec<u32>>,
        writing: &'w RwLock<()>,
    ) -> Result<(Vec<Vec<u32>>, RwLockReadGuard<'w, ()>)> {
        let mut recorded = lock(&self.recorded);
        recorded.extend(clusters.iter().cloned());
        let guard = writing.read().unwrap();
        drop(recorded);
        Ok((clusters, guard))
    }
    fn write(
        &self,
        clusters: Vec<Vec<u32>>,
        guard: RwLockReadGuard<'_, ()>,
        _writing: &RwLock<()>,
        done: &mut dyn FnMut(Vec<u32>, Result<()>),
    ) -> Result<()> {
        for c in clusters {
            let outcome = match c.contains(&UNWRITABLE) {
                true => Err(Error::InvalidArgument("disk full".into())),
                false => Ok(()),
            };
            *lock(&self.written) += 1;
            done(c, outcome);
        }
        drop(guard);
        Ok(())
    }
}

fn engine(target: u64, budget: u64, ordered: bool) -> Arc<Engine<Toy>> {
    let toy = Toy {
        target,
        ..Toy::default()
    };
    let options = EngineOptions {
        memory_budget: budget,
        ordered,
        return_freed_memory: false,
    };
    Engine::new(toy, options).unwrap()
}

/// Appends `values` in steps of 1000.
fn extend(filling: &mut Filling<'_, Toy>, values: &[u32]) -> Result<()> {
    filling.start();
    filling.append_steps(values.len(), 1000, 4, |b, start, end| {
        b.0.reserve_exact(end - start);
        b.0.extend_from_slice(&values[start..end]);
        Ok(())
    })
}

#[test]
fn clusters_go_in_by_sequence_number_past_skipped_and_empty_ones() {
    let engine = engine(u64::MAX, 1 << 20, true);
    let mut a = engine.context();
    let mut b = engine.context();
    b.sequenced(3, |f| extend(f, &[30, 31])).unwrap();
    a.sequenced(2, |f| extend(f, &[])).unwrap();
    b.sequenced(1, |f| extend(f, &[10])).unwrap();
    assert!(lock(&engine.sink.recorded).is_empty(), "0 has not come");
    a.skip_sequence(0).unwrap();
    assert_eq!(*lock(&engine.sink.recorded), [vec![10], vec![30, 31]]);
    let err = a.sequenced(1, |f| extend(f, &[1])).unwrap_err();
    assert!(err
        .to_string()
        .contains("sequence number 1 was already used"));
    assert!(
        a.unordered().is_err(),
        "an ordered writer takes sequence numbers"
    );
    drop((a, b));
    engine.close_contexts().unwrap();
    assert_eq!(engine.budget().in_use(), 0);
    assert!(engine.close_contexts().is_err(), "closed twice");
}

#[test]
fn producers_on_threads_stay_within_the_budget() {
    let budget = 1 << 20;
    let engine = engine(u64::MAX, budget, false);
    let per_thread = 300_000u32;
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let mut context = engine.context();
            s.spawn(move || {
                let values: Vec<u32> = (0..per_thread).map(|i| t * per_thread + i).collect();
                for chunk in values.chunks(50_000) {
                    extend(&mut context.unordered().unwrap(), chunk).unwrap();
                }
            });
        }
    });
    engine.close_contexts().unwrap();
    assert!(
        engine.budget().peak() <= budget,
        "peak {} over the budget",
        engine.budget().peak()
    );
    assert_eq!(engine.budget().in_use(), 0);
    let mut all: Vec<u32> = lock(&engine.sink.recorded).concat();
    assert!(
        lock(&engine.sink.recorded).len() > 4,
        "clusters shrink under pressure"
    );
    all.sort_unstable();
    assert_eq!(all, (0..4 * per_thread).collect::<Vec<_>>());
    assert_eq!(
        *lock(&engine.sink.written),
        lock(&engine.sink.recorded).len()
    );
}

#[test]
fn clusters_are_committed_at_their_target_size() {
    let engine = engine(4000, 64 << 20, false);
    let mut context = engine.context();
    let values: Vec<u32> = (0..3500).collect();
    extend(&mut context.unordered().unwrap(), &values).unwrap();
    let sizes: Vec<usize> = lock(&engine.sink.recorded).iter().map(Vec::len).collect();
    assert_eq!(
        sizes,
        [1000, 1000, 1000],
        "4000 bytes reached every 1000 entries"
    );
    context.commit_cluster().unwrap();
    assert_eq!(lock(&engine.sink.recorded).last().unwrap().len(), 500);
}

#[test]
fn a_panicking_producer_loses_its_cluster_and_close_says_so() {
    let engine = engine(u64::MAX, 1 << 20, false);
    let mut good = engine.context();
    extend(&mut good.unordered().unwrap(), &[1, 2]).unwrap();
    let mut bad = engine.context();
    let panicked = std::thread::spawn(move || {
        extend(&mut bad.unordered().unwrap(), &[7, 8, 9]).unwrap();
        panic!("a producer's bug");
    })
    .join();
    assert!(panicked.is_err());
    drop(good);
    engine.close_contexts().unwrap();
    assert_eq!(*lock(&engine.sink.recorded), [vec![1, 2]]);
    assert_eq!(engine.budget().in_use(), 0);
    let err = engine.result((), "closed").unwrap_err();
    assert!(err.to_string().contains("a producer panicked"), "{err}");
}

#[test]
fn a_failed_write_gives_its_budget_back_and_fails_close() {
    let engine = engine(u64::MAX, 1 << 20, false);
    let mut context = engine.context();
    extend(&mut context.unordered().unwrap(), &[5, UNWRITABLE]).unwrap();
    let err = context.commit_cluster().unwrap_err();
    assert!(err.to_string().contains("disk full"));
    extend(&mut context.unordered().unwrap(), &[6]).unwrap();
    drop(context);
    engine.close_contexts().unwrap();
    assert_eq!(engine.budget().in_use(), 0);
    assert_eq!(lock(&engine.sink.recorded).len(), 2);
    let err = engine.result((), "closed with 3 entries").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid argument: closed with 3 entries, but producers failed: invalid argument: disk full"
    );
}

#[test]
fn no_flush_steps_leave_the_cluster_open_and_say_when_it_is_due() {
    let engine = engine(4000, 64 << 20, false);
    let mut context = engine.context();
    let values: Vec<u32> = (0..1500).collect();
    let mut filling = context.unordered().unwrap().with_pace(Pace::NoFlush);
    extend(&mut filling, &values[..900]).unwrap();
    assert!(!filling.cluster_due(), "3600 bytes are below the target");
    extend(&mut filling, &values[900..]).unwrap();
    assert!(filling.cluster_due(), "6000 bytes reached it");
    drop(filling);
    assert!(
        lock(&engine.sink.recorded).is_empty(),
        "the caller commits the cluster"
    );
    context.commit_cluster().unwrap();
    assert_eq!(*lock(&engine.sink.recorded), [values]);
}

#[test]
fn no_wait_steps_append_nothing_when_the_budget_is_spent() {
    // A budget of 1 MiB, 64 KiB of which each step reserves beyond its data; other
    // producers hold all but 10 KB of it.
    let engine = engine(u64::MAX, 1 << 20, false);
    let others = (1 << 20) - 10_000;
    assert!(engine.budget().try_acquire(others));
    let mut context = engine.context();
    let mut filling = context.unordered().unwrap().with_pace(Pace::NoWait);
    extend(&mut filling, &[1, 2, 3]).unwrap();
    assert!(filling.blocked(), "the others hold the budget");
    drop(filling);
    assert!(
        !context
            .unordered()
            .unwrap()
            .with_pace(Pace::NoWait)
            .blocked(),
        "each call starts unblocked"
    );
    // Once the others give their bytes back, the same step goes in.
    engine.budget().release(others);
    let mut filling = context.unordered().unwrap().with_pace(Pace::NoWait);
    extend(&mut filling, &[1, 2, 3]).unwrap();
    assert!(!filling.blocked());
    drop(filling);
    context.commit_cluster().unwrap();
    assert_eq!(*lock(&engine.sink.recorded), [vec![1, 2, 3]]);
    // A step larger than the whole budget is taken when nothing else is.
    let huge: Vec<u32> = (0..400_000).collect();
    let mut filling = context.unordered().unwrap().with_pace(Pace::NoWait);
    extend(&mut filling, &huge).unwrap();
    assert!(!filling.blocked());
}

#[test]
fn staged_entries_take_the_place_their_sequence_number_gives() {
    let engine = engine(4000, 64 << 20, true);
    let mut a = engine.context();
    let mut b = engine.context();
    let staged = |c: &mut FillContext<Toy>, values: &[u32]| {
        let mut filling = c.staged().unwrap();
        extend(&mut filling, values).unwrap();
        filling.cluster_due()
    };
    assert!(!staged(&mut a, &[10, 11]));
    assert!(!staged(&mut a, &[12]));
    let big: Vec<u32> = (100..1100).collect();
    assert!(staged(&mut b, &big), "4000 bytes reached the target");
    assert!(
        lock(&engine.sink.recorded).is_empty(),
        "staged, not committed"
    );
    b.commit_staged(1).unwrap();
    assert!(lock(&engine.sink.recorded).is_empty(), "1 waits for 0");
    a.commit_staged(0).unwrap();
    assert_eq!(*lock(&engine.sink.recorded), [vec![10, 11, 12], big]);
    let err = a.commit_staged(1).unwrap_err();
    assert!(err
        .to_string()
        .contains("sequence number 1 was already used"));
    // A context dropped with staged entries loses them, and close says so.
    staged(&mut a, &[7]);
    drop((a, b));
    engine.close_contexts().unwrap();
    assert_eq!(engine.budget().in_use(), 0);
    let err = engine.result((), "closed").unwrap_err();
    assert!(err.to_string().contains("1 staged entries"), "{err}");
    // Staging needs an ordered writer.
    let unordered = self::engine(4000, 64 << 20, false);
    assert!(unordered.context().staged().is_err());
}
