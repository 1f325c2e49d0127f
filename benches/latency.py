"""The figures every latency bench prints, computed one way, and the option
reader of the benches that take flags: imported by search_latency.py,
show_latency.py, notmuch_latency.py, alternate_latency.py and corpus_sizes.py
(Python puts a script's own folder on its path)."""
import statistics


def figures(times):
    """`median X ms  p95 Y ms  max Z ms` of a list of milliseconds."""
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(round(0.95 * len(times))) - 1)]
    return f"median {statistics.median(times):.1f} ms  p95 {p95:.1f} ms  max {times[-1]:.1f} ms"


def option(args, flag):
    """Remove `flag VALUE` from args and return VALUE (None when absent)."""
    if flag not in args:
        return None
    i = args.index(flag)
    value = args[i + 1]
    del args[i:i + 2]
    return value
