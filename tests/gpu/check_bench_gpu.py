"""check_bench_gpu.py OUT.h5: the columns of stepq_bench_gpu's HDF5 file (bench_gpu.cu) against
what they must be, recomputed here: the bytes a head-step moves from the packed layouts' sizes
(quant/layout.h) and what each kernel reads and writes, the pool's bytes from them, GB/s and the
ratio to FP32 from the times, which kernels run which formats, the kernels' checks, and (in the
emulation) no device figures. Exits 1 naming each column that is wrong."""
import sys

import h5py
import numpy as np

K = V = 128
REC = 4 * K + V + 1 + 3 & ~3        # the input record, floats (blockprog.cuh's bp_rec_floats)
LANES_IN = 2 * K + V + 1 + 1        # what the lane kernels read of it: q, k, v, GDN's one gate g, beta


LANES_FORMATS = ("fp32", "bf16", "fp16", "int8", "int6", "int4", "nvfp4", "fp8-tile32", "stepquant6", "time6",
                 "damp", "leap6-r4", "int8-sr", "fp8-sr", "fp16-sr")
PLANNED = ("stepquant6", "time6", "damp")  # widths from the plan


def packed(fmt):
    """bytes of a packed 128 x 128 head in the pool for the formats the lane kernels take but
    those of PLANNED, whose widths are their plan's (quant/layout.h), rounded up to 16 as the pool's stride"""
    if fmt == "fp32":
        return 4 * K * V
    if fmt.endswith("-sr"):            # the encode counter, (int8, fp8) V float32 column scales, the codes
        head = 8 + (4 * V if fmt != "fp16-sr" else 0)
        return (head + K * V * (2 if fmt == "fp16-sr" else 1) + 15) // 16 * 16
    if fmt.startswith("leap"):         # int-b rows, then the residual: int-r rows (leapB-rR) or FP32's floats
        b, r = fmt[4:].split("-")
        base = K * (2 + V * int(b) // 8)
        return base + (4 * K * V if r == "fp32" else K * (2 + V * int(r[1:]) // 8))
    if fmt in ("bf16", "fp16"):
        return 2 * K * V
    if fmt == "fp8-tile32":            # per 32 rows a float32 scale, then their E4M3 bytes
        return K // 32 * 4 + K * V
    if fmt == "nvfp4":                 # s_head, then per 16 values an E4M3 byte and 8 code bytes
        return (4 + K * V // 16 * 9 + 15) // 16 * 16
    b = int(fmt[3:])
    return K * (2 + V * b // 8)


def main(path):
    bad = []
    with h5py.File(path, "r") as f:
        fmts = [s.decode() if isinstance(s, bytes) else s for s in f["formats"][()]]
        modes = [s.decode() if isinstance(s, bytes) else s for s in f["modes"][()]]
        B = f["B"][()]
        ms, moved, gbps, vs = (f[n][()] for n in ("ms_per_step", "bytes_per_step", "gbps", "speedup_vs_fp32"))
        per_head = f["bytes_per_head_step"][()]
        agree = f["check_agree"][()]
        emulated = "emulation" in str(f.attrs["device"])
        if modes != ["fused", "split", "lanes"]:
            bad.append(f"modes {modes}")
        heads = B * f.attrs["heads_per_request"]
        lanes = modes.index("lanes")
        for i, fm in enumerate(fmts):
            for m, mode in enumerate(modes):
                runs = (mode != "lanes" or fm in LANES_FORMATS) and not (fm == "fp32" and mode == "split")
                if runs != bool(np.all(np.isfinite(ms[i, m]))):
                    bad.append(f"{fm} {mode}: timed {np.isfinite(ms[i, m])}, should run: {runs}")
                if runs and not agree[i, m]:
                    bad.append(f"{fm} {mode}: its check against the CPU did not pass")
                if not runs:
                    continue
                if not np.allclose(per_head[i, m] * heads, moved[i, m], rtol=1e-12):
                    bad.append(f"{fm} {mode}: bytes_per_head_step x heads != bytes_per_step")
                if not np.allclose(gbps[i, m], moved[i, m] / (ms[i, m] * 1e-3) / 1e9, rtol=1e-9):
                    bad.append(f"{fm} {mode}: gbps is not bytes over time")
                base = lanes if m == lanes else modes.index("fused")
                if not np.allclose(vs[i, m], ms[0, base] / ms[i, m], rtol=1e-9):
                    bad.append(f"{fm} {mode}: speedup_vs_fp32 is not fp32's time (same kernels) over its own")
        # the lane kernels: the state read and written, the record's q, k, v, g and beta, y
        for i, fm in enumerate(fmts):
            if fm in PLANNED:  # the stride is the plan's: the fused kernel's bytes but the record
                want = per_head[i, modes.index("fused")] - 4 * (REC - LANES_IN)
                if not np.allclose(per_head[i, lanes], want, rtol=1e-12):
                    bad.append(f"{fm} lanes: {per_head[i, lanes]} bytes a head-step, want {want}")
            elif fm in LANES_FORMATS:
                want = 2 * packed(fm) + 4 * LANES_IN + 4 * V
                if not np.all(per_head[i, lanes] == want):
                    bad.append(f"{fm} lanes: {per_head[i, lanes]} bytes a head-step, want {want}")
        # the block programs' fp32 baseline: its state (the stride), the whole record, y
        if not np.all(per_head[0, 0] == 2 * packed("fp32") + 4 * REC + 4 * V):
            bad.append(f"fp32 fused: {per_head[0, 0]} bytes a head-step")
        if emulated:
            for n in ("registers", "shared_bytes", "blocks_per_sm", "pool_in_l2"):
                if np.any(np.nan_to_num(f[n][()]) != 0):
                    bad.append(f"{n}: not 0 in the emulation")
    for b in bad:
        print("check_bench_gpu:", b)
    print(f"check_bench_gpu: {path}: {'columns as expected' if not bad else str(len(bad)) + ' wrong'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
