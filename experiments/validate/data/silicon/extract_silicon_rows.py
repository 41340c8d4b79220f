#!/usr/bin/env python3
"""Rebuild silicon_dense.csv from aiconfigurator's silicon_sample.csv (standard library only).

    python3 experiments/validate/data/silicon/extract_silicon_rows.py \
        PATH/TO/silicon_sample.csv > experiments/validate/data/silicon/silicon_dense.csv

Keeps every row a supported sparksim configuration can replay (README.md, "Filter"): a dense
target with a measured-db profile under profiles/measured-db (Qwen3-32B, Llama-3.1-8B), H100 or
H200 SXM, aggregated serving, pp 1, tp 1/2/4/8, bf16 or per-tensor fp8 GEMMs, and an engine version
with a preset in sim/engine_preset.cpp. Lines are copied byte for byte, in upstream order, in three
blocks: first the vLLM and SGLang rows bundled on 2026-11-28, then the TensorRT-LLM 1.0 rows added
on 2026-11-29, then the TensorRT-LLM 1.2 rows added later that day with the trtllm@1.2 preset, so
each earlier block stays a byte-identical prefix. Run from the repository root.
"""
import os
import sys

TARGETS = {
    "Qwen/Qwen3-32B": "qwen3-32b",
    "meta-llama/Llama-3.1-8B-Instruct": "llama-3.1-8b",
    "nvidia/Llama-3.1-8B-Instruct-FP8": "llama-3.1-8b",
}
GPUS = {"h100_sxm": "h100-sxm", "h200_sxm": "h200-sxm"}
# Engine versions with a preset (sim/engine_preset.cpp): a version matches when it equals one of
# these or starts with it followed by a dot.
PRESET_VERSIONS = {"vllm": ["0.11", "0.12"], "sglang": ["0.5"], "trtllm": ["1.0", "1.2"]}
# The blocks in the order they were bundled: (backend, preset version or None for any).
BLOCKS = [[("vllm", None), ("sglang", None)], [("trtllm", "1.0")], [("trtllm", "1.2")]]


def version_matches(version, preset_version):
    return version == preset_version or version.startswith(preset_version + ".")


def has_preset(backend, version):
    return any(version_matches(version, v) for v in PRESET_VERSIONS.get(backend, []))


def in_block(row, block):
    return any(row["backend"] == backend and
               (preset is None or version_matches(row["backend_version"], preset))
               for backend, preset in block)


def precision_of(row):
    if row["precision"] in ("", "bf16"):
        return "bf16"
    if row["precision"] == "fp8" and row["gemm_quant_mode"] in ("", "fp8"):
        return "fp8"
    return None


def replayable(row, profiles):
    target = TARGETS.get(row["model_path"])
    gpu = GPUS.get(row["system"])
    precision = precision_of(row)
    if not target or not gpu or precision is None or row["mode"] != "agg":
        return False
    if row["pp_size"] != "1" or row["tp_size"] not in ("1", "2", "4", "8"):
        return False
    name = f"{target}-tp{row['tp_size']}{'-fp8' if precision == 'fp8' else ''}.json"
    if not os.path.exists(os.path.join(profiles, gpu, name)):
        return False
    return has_preset(row["backend"], row["backend_version"])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: extract_silicon_rows.py PATH/TO/silicon_sample.csv > silicon_dense.csv")
    with open(sys.argv[1], newline="") as f:
        lines = f.read().split("\n")
    header = lines[0].split(",")
    rows = []
    for line in lines[1:]:
        if not line:
            continue
        cells = line.split(",")
        if len(cells) != len(header):
            sys.exit(f"{sys.argv[1]}: a row with {len(cells)} cells, header has {len(header)}")
        rows.append((line, dict(zip(header, cells))))
    out = [lines[0]]
    for block in BLOCKS:
        out += [line for line, row in rows
                if in_block(row, block) and replayable(row, "profiles/measured-db")]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
