"""Print scripts/bench.sh's results as Markdown tables: each comparison
with its ratio against the target, scale, the floor, and the stages.

    /usr/bin/python3 bench/table.py .bench/results
"""
import glob
import json
import os
import re
import statistics
import sys

RES = sys.argv[1]
SHAPES = ["chain", "fan", "diamond", "shared-chain", "shared-writers", "shared-readers"]
SIZES = [100, 500, 1000, 5000, 20000]


def hyperfine(name):
    """The median seconds of each command of results/NAME.json."""
    with open(os.path.join(RES, name + ".json")) as f:
        return [r["median"] for r in json.load(f)["results"]]


def ms(seconds):
    """A time as people read it: µs, ms or s."""
    if seconds < 0.001:
        return "%.0f µs" % (seconds * 1e6)
    if seconds < 1:
        return "%.1f ms" % (seconds * 1000)
    return "%.2f s" % seconds


def verdict(ratio, limit, below=True):
    met = ratio <= limit if below else ratio >= limit
    return "met" if met else "NOT met"


def versions():
    with open(os.path.join(RES, "versions.txt")) as f:
        return dict(line.strip().split(" ", 1) for line in f if line.strip())


def comparisons(v):
    rows = []
    times = hyperfine("seed002")
    ratio = times[0] / times[1]
    rows.append(("seed 002: resnet50-multinode, argo, vs `kustomize build` of the same MPIJob",
                 ms(times[0]), "kustomize " + v["kustomize"], ms(times[1]), "%.2fx" % ratio,
                 "<= 0.5x (aim 0.25x)", verdict(ratio, 0.5)))
    if len(times) > 2:
        ratio = times[0] / times[2]
        rows.append(("seed 002, against `kubectl kustomize`", ms(times[0]), "kubectl " + v.get("kubectl", "?"),
                     ms(times[2]), "%.2fx" % ratio, "<= 0.5x (aim 0.25x)", verdict(ratio, 0.5)))
    times = hyperfine("seed003")
    ratio = times[0] / times[1]
    rows.append(("seed 003: single-gpu-task, job, vs the Jinja2 template", ms(times[0]),
                 "jinja2 " + v["jinja2"], ms(times[1]), "%.2fx" % ratio, "< 1x", verdict(ratio, 1)))
    times = hyperfine("lint")
    ratio = times[0] / times[1]
    rows.append(("`lint` of 1,000 cubes (every backend, every validator) vs `cue vet` (schema only)",
                 ms(times[0]), "cue " + v["cue"], ms(times[1]), "%.2fx" % ratio, "<= 0.5x", verdict(ratio, 0.5)))
    if len(times) > 2:
        ratio = times[2] / times[1]
        rows.append(("`lint --cache`, a second run on the unchanged cubes, vs `cue vet`",
                     ms(times[2]), "cue " + v["cue"], ms(times[1]), "%.2fx" % ratio, "<= 0.5x", verdict(ratio, 0.5)))
        fill = hyperfine("lint-fill")[0]
        rows.append(("`lint --cache`, a first run filling an empty cache, vs `lint`",
                     ms(fill), "lint", ms(times[0]), "%.2fx" % (fill / times[0]), "", ""))
    print("| measure | mlcube-compile | peer | peer's time | ratio | target | |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def rss(name):
    with open(os.path.join(RES, name + ".rss")) as f:
        return statistics.median(int(x) for x in f.read().split()) * 1024 / 1e6  # KB to MB


def scale():
    print("| shape | " + " | ".join("%d steps" % n for n in SIZES) + " | t(5000)/t(500) | RSS at 5000 |")
    print("| --- |" + " --- |" * (len(SIZES) + 2))
    for shape in SHAPES:
        t = {n: hyperfine("scale-%s-%d" % (shape, n))[0] for n in SIZES}
        cells = ["%s, %.0f MB" % (ms(t[n]), rss("scale-%s-%d" % (shape, n))) for n in SIZES]
        growth, peak = t[5000] / t[500], rss("scale-%s-5000" % shape)
        print("| %s | %s | %.1fx (<= 12x: %s) | %.0f MB (< 300 MB: %s) |" % (
            shape, " | ".join(cells), growth, verdict(growth, 12), peak, verdict(peak, 300)))


def go_benchmarks(path):
    """Each benchmark's medians over its counts: ns/op, B/op, allocs/op."""
    runs = {}
    line = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+(\d+) B/op\s+(\d+) allocs/op)?")
    pkg = "mlcube-compile"  # a test binary run alone prints no pkg: line
    with open(path) as f:
        for text in f:
            if text.startswith("pkg: "):
                pkg = text.split("/")[-1].strip()
            m = line.match(text)
            if m:
                runs.setdefault((pkg, m.group(1)), []).append(
                    [float(m.group(2))] + [float(x) for x in m.groups()[2:] if x is not None])
    return {k: [statistics.median(col) for col in zip(*v)] for k, v in runs.items()}


def floor():
    compiled = go_benchmarks(os.path.join(RES, "compile-in-process.txt"))
    print("| input | compile, in-process | floor: decode in, encode out | ratio | target |")
    print("| --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(RES, "floor-*.ns"))):
        name = os.path.basename(path)[len("floor-"):-len(".ns")]
        with open(path) as f:
            floor_ns = statistics.median(float(x) for x in f.read().split())
        compile_ns = compiled[("mlcube-compile", "BenchmarkCompile/" + name)][0]
        ratio = compile_ns / floor_ns
        print("| %s | %s | %s | %.1fx | <= 3x: %s |" % (
            name, ms(compile_ns / 1e9), ms(floor_ns / 1e9), ratio, verdict(ratio, 3)))


def stages():
    print("| package | benchmark | time/op | B/op | allocs/op |")
    print("| --- | --- | --- | --- | --- |")
    for (pkg, name), cols in sorted(go_benchmarks(os.path.join(RES, "stages.txt")).items()):
        mem = ["%.0f" % c for c in cols[1:]] if len(cols) == 3 else ["", ""]
        print("| %s | %s | %s | %s |" % (pkg, name[len("Benchmark"):], ms(cols[0] / 1e9), " | ".join(mem)))


def main():
    v = versions()
    print("## mlcube-compile against the tools users run today (medians)\n")
    for k in sorted(v):
        print("- %s %s" % (k, v[k]))
    print()
    comparisons(v)
    print("\n## Scale: compile time and peak RSS (argo; 20,000 steps are refused, over Argo's 1 MiB)\n")
    scale()
    print("\n## Floor: decoding the input and encoding the output, and nothing else\n")
    floor()
    print("\n## Stages (go test -bench -benchmem, medians)\n")
    stages()


main()
