#!/usr/bin/env bash
# Runs one fuzz target for a while on one core.
#
#   fuzz/run.sh TARGET [SECONDS] [more libFuzzer options]
#
# TARGET is rntuple_file, rntuple_envelopes, ttree_file, recover_file, an encoder target
# (compress_lzma, compress_lz4, compress_zlib, compress_zstd: rootweave's blocks decoded by
# the reference libraries must give back the input), analysis_expression (RDataFrame
# expressions, seeded with the lines of expressions.txt) or csv_file (CSV files as FromCSV
# reads them); SECONDS defaults to 600. The
# corpus (fuzz/corpus/TARGET) is seeded on every run with the small RNTuple files of the
# test data (tests/data, or $TESTDATA) and with small
# files that examples/make_seeds.rs writes; for ttree_file, with the TTree files under
# 100 KiB of the test data and of the real-file corpus ($CORPUS); recover_file with
# both. None of them is committed. Findings land in
# fuzz/artifacts/TARGET.
set -euo pipefail
cd "$(dirname "$0")"

target=${1:-rntuple_file}
seconds=${2:-600}
shift $(( $# < 2 ? $# : 2 ))
testdata=${TESTDATA:-../tests/data}

# cargo-fuzz, the seed writer and the target, built with the flags of the run below (which
# then builds nothing); RUSTC_BOOTSTRAP=1 lets a stable toolchain take cargo-fuzz's nightly
# flags (-Zsanitizer=address).
./build.sh "$target"
export RUSTC_BOOTSTRAP=1

mkdir -p "corpus/$target" "artifacts/$target" seeds
dict=rntuple.dict
max_len=65536
if [ "$target" = ttree_file ] || [ "$target" = recover_file ]; then
    [ "$target" = ttree_file ] && dict=ttree.dict
    max_len=131072
    # The TTree files under 100 KiB of the test data and of the real-file corpus
    # ($CORPUS, by default the scikit-hep-testdata set beside the checkout).
    real=${CORPUS:-../../shared/corpus/scikit-hep-testdata}
    for dir in "$testdata" "$real"; do
        if [ -d "$dir" ]; then
            find "$dir" -maxdepth 1 -name '*.root' ! -name '*rntuple*' -size -100k \
                -exec cp {} "corpus/$target/" \;
        else
            echo "no files at $dir: no TTree seeds from there" >&2
        fi
    done
fi
if [ "$target" = analysis_expression ]; then
    # Text, not files: each line of expressions.txt is a seed.
    dict=expr.dict
    max_len=4096
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        printf '%s' "$line" > "corpus/$target/seed-$n"
    done < expressions.txt
elif [ "$target" = csv_file ]; then
    # Text: a byte of options, then a file with every kind of cell.
    dict=csv.dict
    max_len=4096
    printf '\000a,b,c,d\n1,2.5,true,"x,""y"""\n,nan,false,\n3,1e5,truex, s \n' \
        > "corpus/$target/seed-1"
    printf '\077# c\n  1;2.;x # t\n\n  3;.5e3;y\nfooter\n' > "corpus/$target/seed-2"
elif [ "$target" = ttree_file ]; then
    :
elif [ -d "$testdata" ]; then
    # Small RNTuple files only: big ones make every run slow. test_int_multicluster has
    # one cluster of 10^8 entries, which a read decodes whole (8 s per input here).
    find "$testdata" -maxdepth 1 -name '*rntuple*.root' -size -40k \
        ! -name 'test_int_multicluster*' -exec cp {} "corpus/$target/" \;
else
    echo "no test data at $testdata: seeding with generated files only" >&2
fi
if [ "$target" != ttree_file ] && [ "$target" != analysis_expression ] && [ "$target" != csv_file ]; then
    cargo run --quiet --release --example make_seeds -- seeds
    cp seeds/*.root "corpus/$target/"
fi

# -O -a (as build.sh builds): optimized, with overflow checks and debug assertions as in
# the test profile.
# Bounds: an input that takes more than 10 s, allocates more than 1 GiB at once or makes
# the process exceed 2 GiB is a finding, like a panic. -fork=1 runs the fuzzing in one
# child process at a time and goes on after a finding (KEEP_GOING=0: stop at the first).
keep_going=()
if [ "${KEEP_GOING:-1}" = 1 ]; then
    keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
exec cargo fuzz run -O -a "$target" "corpus/$target" -- \
    "${keep_going[@]}" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -max_len="$max_len" -dict="$dict" -print_final_stats=1 \
    -max_total_time="$seconds" "$@"
