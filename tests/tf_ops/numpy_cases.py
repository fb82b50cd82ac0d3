#!/usr/bin/python3
"""Writes the cases tst_tf_ops_numpy checks ClusterLab's kernels against: inputs and the
values numpy computes for them, as .npy files, and cases.tsv naming each case's op, attrs,
inputs and expected outputs.

  /usr/bin/python3 tests/tf_ops/numpy_cases.py OUTPUT_DIR

cases.tsv columns (tab-separated): name, op, attrs ('-' or space-separated key=kind:value,
kind one of i, f, b, s, type, li), inputs (comma-separated .npy names, a leading '&' marks
a variable reference), expected (comma-separated .npy names: the outputs in order, then the
referenced variables' values after the run). Exit 77 when numpy is missing.
"""

import os
import sys

try:
    import numpy as np
except ImportError:
    print("numpy_cases: skipped: python3-numpy is not installed")
    sys.exit(77)

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rows = []
counter = [0]
rng = np.random.RandomState(7)


def save(array):
    counter[0] += 1
    name = f"a{counter[0]}.npy"
    np.save(os.path.join(OUT, name), np.array(array, order="C"))  # 0-d stays 0-d
    return name


def case(name, op, inputs, expected, attrs="-", refs=()):
    names = []
    for i, x in enumerate(inputs):
        names.append(("&" if i in refs else "") + save(x))
    rows.append("\t".join([name, op, attrs, ",".join(names), ",".join(save(e) for e in expected)]))


f32 = np.float32
i32 = np.int32


def floats(*shape):
    return (rng.standard_normal(shape) * 3).astype(f32)


nan = f32("nan")
# ---- binary, with broadcasting ----------------------------------------------------------
x, y = floats(2, 3, 4), floats(3, 1)
x[0, 0, 0], y[1, 0] = nan, nan
case("maximum_broadcast_nan", "Maximum", [x, y], [np.maximum(x, y)])
case("minimum_broadcast_nan", "Minimum", [x, y], [np.minimum(x, y)])
a = np.array([[7, -7, 7, -7, 0, 5]], dtype=i32)
b = np.array([[2], [-2], [3]], dtype=i32)
case("floordiv_int_signs", "FloorDiv", [a, b], [np.floor_divide(a, b)])
case("floormod_int_signs", "FloorMod", [a, b], [np.mod(a, b)])
af, bf = a.astype(f32) + f32(0.5), b.astype(f32)
case("floordiv_float_signs", "FloorDiv", [af, bf], [np.floor_divide(af, bf)])
case("floormod_float_signs", "FloorMod", [af, bf], [np.mod(af, bf)])
p = np.abs(floats(3, 4)) + f32(0.1)
e = np.arange(4, dtype=f32) - 1
case("pow_float", "Pow", [p, e], [np.power(p, e)])
case("pow_int", "Pow", [np.array([2, -3, 5], i32), np.array([3, 3, 0], i32)], [np.array([8, -27, 1], i32)])
case("squared_difference", "SquaredDifference", [x, y], [np.square(x - y)])
d = np.array([1.0, 0.0, -2.0, 0.0], f32)
n = np.array([3.0, nan, 4.0, 1.0], f32)
case("div_no_nan_zero_divisor", "DivNoNan", [n, d], [np.where(d == 0, f32(0), n / np.where(d == 0, 1, d))])
ci, cj = floats(4, 1), floats(5)
ci[1, 0] = cj[2]
for op, fn in [("Greater", np.greater), ("GreaterEqual", np.greater_equal), ("Less", np.less),
               ("LessEqual", np.less_equal), ("NotEqual", np.not_equal)]:
    case("compare_" + op, op, [ci, cj], [fn(ci, cj)])
ba, bb = rng.rand(3, 4) > 0.5, rng.rand(4) > 0.5
case("logical_and", "LogicalAnd", [ba, bb], [np.logical_and(ba, bb)])
case("logical_or", "LogicalOr", [ba, bb], [np.logical_or(ba, bb)])
case("logical_not", "LogicalNot", [ba], [np.logical_not(ba)])
# ---- unary ------------------------------------------------------------------------------
u = floats(3, 5)
u[0, 0], u[0, 1], u[0, 2] = nan, f32(2.5), f32(-0.5)
case("abs", "Abs", [u], [np.abs(u)])
case("sign_nan", "Sign", [u], [np.sign(u)])
case("sign_int", "Sign", [np.array([-4, 0, 9], i32)], [np.array([-1, 0, 1], i32)])
case("reciprocal", "Reciprocal", [u], [np.reciprocal(u)])
pos = np.abs(u) + f32(0.01)
case("rsqrt", "Rsqrt", [pos], [1 / np.sqrt(pos)])
case("log1p_small", "Log1p", [pos * f32(1e-6)], [np.log1p(pos * f32(1e-6))])
case("floor", "Floor", [u], [np.floor(u)])
case("ceil", "Ceil", [u], [np.ceil(u)])
halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6], f32)
case("round_half_even", "Round", [halves], [np.round(halves)])
case("is_finite", "IsFinite", [np.array([1.0, nan, np.inf, -np.inf], f32)], [np.array([True, False, False, False])])
# ---- reductions -------------------------------------------------------------------------
r = floats(2, 3, 4)
r[1, 2, 3] = nan
for op, fn in [("Prod", np.prod), ("Max", np.max), ("Min", np.min)]:
    case(f"reduce_{op}_axes", op, [r, np.array([0, 2], i32)], [fn(r, axis=(0, 2))])
    case(f"reduce_{op}_keep_dims", op, [r, np.array([-1], i32)], [fn(r, axis=-1, keepdims=True)],
         "keep_dims=b:1")
rb = rng.rand(3, 4) > 0.3
case("reduce_all", "All", [rb, np.array(1, i32)], [np.all(rb, axis=1)])
case("reduce_any", "Any", [rb, np.array([0, 1], i32)], [np.any(rb, axis=(0, 1))])
am = floats(3, 4)
case("argmin_axis1", "ArgMin", [am, np.array(1, i32)], [np.argmin(am, axis=1).astype(np.int64)])
# ---- arrays -----------------------------------------------------------------------------
p1, p2, p3 = floats(2, 3), floats(2, 3), floats(2, 3)
case("pack_axis1", "Pack", [p1, p2, p3], [np.stack([p1, p2, p3], axis=1)], "N=i:3 axis=i:1")
case("pack_axis_neg", "Pack", [p1, p2], [np.stack([p1, p2], axis=-1)], "N=i:2 axis=i:-1")
case("unpack_axis0", "Unpack", [p1], [p1[0], p1[1]], "num=i:2")
q1, q2 = floats(2, 3, 1), floats(2, 3, 4)
case("concat_last_axis", "ConcatV2", [q1, q2, np.array(-1, i32)], [np.concatenate([q1, q2], axis=-1)], "N=i:2")
case("concat_int_vectors", "ConcatV2", [np.array([1, 2], i32), np.array([3], i32), np.array(0, i32)],
     [np.array([1, 2, 3], i32)], "N=i:2")
t = floats(2, 3)
case("tile", "Tile", [t, np.array([2, 3], i32)], [np.tile(t, (2, 3))])
case("tile_int64_multiples", "Tile", [t, np.array([1, 2], np.int64)], [np.tile(t, (1, 2))])
s = floats(4, 5, 6)
case("slice", "Slice", [s, np.array([1, 0, 2], i32), np.array([2, -1, 3], i32)], [s[1:3, 0:, 2:5]])
case("split_axis1", "Split", [np.array(1, i32), np.arange(12, dtype=f32).reshape(2, 6)],
     list(np.split(np.arange(12, dtype=f32).reshape(2, 6), 3, axis=1)), "num_split=i:3")


def strided(name, begin, end, strides, expected, masks=""):
    case("strided_slice_" + name, "StridedSlice",
         [s, np.array(begin, i32), np.array(end, i32), np.array(strides, i32)], [expected], masks or "-")


strided("basic", [1, 0, 0], [3, 5, 6], [1, 2, 3], s[1:3, 0:5:2, 0:6:3])
strided("negative_stride", [-1, 4, 5], [0, 0, 0], [-1, -2, -1], s[-1:0:-1, 4:0:-2, 5:0:-1])
strided("masks", [9, 1, 9], [0, 3, 0], [1, 1, -1], s[:, 1:3, ::-1], "begin_mask=i:5 end_mask=i:5")
strided("shrink", [2, 0, -1], [3, 5, 0], [1, 1, 1], s[2, :, -1], "shrink_axis_mask=i:5 end_mask=i:2")
strided("ellipsis_newaxis", [0, 0, 1], [0, 0, 3], [1, 1, 1], s[..., np.newaxis, 1:3],
        "ellipsis_mask=i:1 new_axis_mask=i:2")
strided("clamped", [-100, 2, 0], [100, 100, 2], [1, 1, 1], s[-100:100, 2:100, 0:2])
strided("short_spec", [1], [2], [1], s[1:2])
case("expand_dims_neg", "ExpandDims", [t, np.array(-1, i32)], [np.expand_dims(t, -1)])
sq = floats(1, 3, 1, 2)
case("squeeze_all", "Squeeze", [sq], [np.squeeze(sq)])
case("squeeze_listed", "Squeeze", [sq], [np.squeeze(sq, axis=2)], "squeeze_dims=li:2")
cond = rng.rand(3, 4) > 0.5
tv, ev = floats(3, 4), floats(3, 4)
case("select_elements", "Select", [cond, tv, ev], [np.where(cond, tv, ev)])
rows_cond = np.array([True, False, True])
case("select_rows", "Select", [rows_cond, tv, ev], [np.where(rows_cond[:, None], tv, ev)])
case("where_coordinates", "Where", [cond], [np.argwhere(cond).astype(np.int64)])
case("broadcast_gradient_args", "BroadcastGradientArgs",
     [np.array([2, 3, 1, 5], i32), np.array([3, 4, 1], i32)],
     [np.array([2], i32), np.array([0, 3], i32)])
case("range_int", "Range", [np.array(3, i32), np.array(-8, i32), np.array(-3, i32)], [np.arange(3, -8, -3, dtype=i32)])
case("range_float", "Range", [f32(0.5), f32(2.0), f32(0.4)], [np.arange(0.5, 2.0, 0.4, dtype=f32)],
     "Tidx=type:float")
perm = np.array([2, 0, 3, 1], i32)
case("invert_permutation", "InvertPermutation", [perm], [np.argsort(perm).astype(i32)])
# ---- gradients of element-wise functions, AddN, BiasAddGrad -----------------------------
yv, dy = rng.rand(3, 4).astype(f32), floats(3, 4)
case("sigmoid_grad", "SigmoidGrad", [yv, dy], [dy * yv * (1 - yv)])
case("tanh_grad", "TanhGrad", [yv, dy], [dy * (1 - yv * yv)])
case("sqrt_grad", "SqrtGrad", [yv + 1, dy], [dy * f32(0.5) / (yv + 1)])
case("rsqrt_grad", "RsqrtGrad", [yv, dy], [f32(-0.5) * dy * yv ** 3])
case("reciprocal_grad", "ReciprocalGrad", [yv, dy], [-dy * yv * yv])
case("add_n", "AddN", [yv, dy, yv], [yv + dy + yv], "N=i:3")
g4 = floats(2, 3, 4, 5)
case("bias_add_grad_nhwc", "BiasAddGrad", [g4], [g4.sum(axis=(0, 1, 2))])
case("bias_add_grad_nchw", "BiasAddGrad", [g4], [g4.sum(axis=(0, 2, 3))], "data_format=s:NCHW")
# ---- optimizer updates (TensorFlow's formulas) ------------------------------------------
var, grad = floats(3, 2), floats(3, 2)
case("apply_gradient_descent", "ApplyGradientDescent", [var, f32(0.1), grad], [var - f32(0.1) * grad, var - f32(0.1) * grad],
     refs=(0,))
m, v = floats(3, 2), np.abs(floats(3, 2))
b1p, b2p, lr, b1, b2, eps = f32(0.9 ** 3), f32(0.999 ** 3), f32(0.01), f32(0.9), f32(0.999), f32(1e-8)
m2 = m + (grad - m) * (1 - b1)
v2 = v + (grad * grad - v) * (1 - b2)
var2 = var - lr * np.sqrt(1 - b2p) / (1 - b1p) * m2 / (np.sqrt(v2) + eps)
case("apply_adam", "ApplyAdam", [var, m, v, b1p, b2p, lr, b1, b2, eps, grad], [var2, var2, m2, v2], refs=(0, 1, 2))
acc = np.abs(floats(3, 2))
acc2 = acc * f32(0.9) + grad
case("apply_momentum", "ApplyMomentum", [var, acc, lr, grad, f32(0.9)],
     [var - lr * acc2, var - lr * acc2, acc2], refs=(0, 1))
acc3 = acc + grad * grad
case("apply_adagrad", "ApplyAdagrad", [var, acc, lr, grad], [var - lr * grad / np.sqrt(acc3)] * 2 + [acc3],
     refs=(0, 1))

# ---- normalisation and activations of CNNs, GANs and VAEs -------------------------------
# Gradient kernels are checked against central finite differences of the forward function,
# computed here in float64.


def numeric_grad(f, args, k, dy, eps=1e-6):
    """d sum(dy * f(*args)) / d args[k], element by element."""
    args = [np.array(a, dtype=np.float64) for a in args]
    out = np.zeros_like(args[k])
    flat = out.reshape(-1)
    target = args[k].reshape(-1)
    for i in range(target.size):
        keep = target[i]
        target[i] = keep + eps
        plus = np.sum(dy * f(*args))
        target[i] = keep - eps
        minus = np.sum(dy * f(*args))
        target[i] = keep
        flat[i] = (plus - minus) / (2 * eps)
    return out


lx = floats(2, 3, 4)
lx[0, 0, :2] = 0
case("leaky_relu_alpha", "LeakyRelu", [lx], [np.where(lx > 0, lx, f32(0.1) * lx)], "alpha=f:0.1")
lxd = lx.astype(np.float64)
case("leaky_relu_default_double", "LeakyRelu", [lxd], [np.where(lxd > 0, lxd, np.float64(f32(0.2)) * lxd)])
ldy = floats(2, 3, 4)
# At the kink x = 0 (where the difference quotient straddles both slopes) TensorFlow's strict
# x > 0 gives alpha: the quotient is taken away from 0 and the slope alpha put there.
away = np.where(lx == 0, f32(-1), lx)
d_leaky = numeric_grad(lambda x: np.where(x > 0, x, np.float64(f32(0.3)) * x), [away], 0, ldy).astype(f32)
case("leaky_relu_grad", "LeakyReluGrad", [ldy, lx], [d_leaky], "alpha=f:0.3")


def lrn(x, radius, bias, alpha, beta):
    depth = x.shape[-1]
    sq = np.zeros_like(x)
    for d in range(depth):
        sq[..., d] = np.sum(x[..., max(0, d - radius):d + radius + 1] ** 2, axis=-1)
    return x / (bias + alpha * sq) ** beta


lrn_attrs = "depth_radius=i:2 bias=f:1.5 alpha=f:0.25 beta=f:0.75"
lrn_params = (2, np.float64(f32(1.5)), np.float64(f32(0.25)), np.float64(f32(0.75)))
li = floats(2, 3, 2, 7)
lo = lrn(li.astype(np.float64), *lrn_params).astype(f32)
case("lrn", "LRN", [li], [lo], lrn_attrs)
case("lrn_default_attrs", "LRN", [li], [lrn(li.astype(np.float64), 5, 1.0, 1.0, 0.5).astype(f32)])
lg = floats(2, 3, 2, 7)
case("lrn_grad", "LRNGrad", [lg, li, lo],
     [numeric_grad(lambda x: lrn(x, *lrn_params), [li], 0, lg).astype(f32)], lrn_attrs)


def batch_norm(x, scale, offset, eps, nchw, mean=None, var=None):
    axes = (0, 2, 3) if nchw else (0, 1, 2)
    shape = (1, -1, 1, 1) if nchw else (1, 1, 1, -1)
    if mean is None:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    return scale.reshape(shape) * (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) + offset.reshape(shape)


eps32 = np.float64(f32(0.001))
empty = np.zeros((0,), f32)
for nchw in (False, True):
    fmt = "NCHW" if nchw else "NHWC"
    bx = floats(3, 4, 2, 5) + f32(1)
    channels = bx.shape[1] if nchw else bx.shape[3]
    axes = (0, 2, 3) if nchw else (0, 1, 2)
    bs, bo = floats(channels), floats(channels)
    x64 = bx.astype(np.float64)
    mean, var = x64.mean(axis=axes), x64.var(axis=axes)
    n = x64.size / channels
    attrs = f"epsilon=f:0.001 data_format=s:{fmt}"
    case(f"fused_batch_norm_training_{fmt}", "FusedBatchNorm", [bx, bs, bo, empty, empty],
         [batch_norm(x64, bs, bo, eps32, nchw).astype(f32), mean.astype(f32), (var * n / (n - 1)).astype(f32),
          mean.astype(f32), var.astype(f32)], attrs)
    pm, pv = floats(channels), np.abs(floats(channels)) + f32(0.5)
    case(f"fused_batch_norm_inference_{fmt}", "FusedBatchNorm", [bx, bs, bo, pm, pv],
         [batch_norm(x64, bs, bo, eps32, nchw, pm, pv).astype(f32), pm, pv, pm, pv], attrs + " is_training=b:0")
    bdy = floats(*bx.shape)
    train_fn = lambda x, s, o: batch_norm(x, s, o, eps32, nchw)
    case(f"fused_batch_norm_grad_training_{fmt}", "FusedBatchNormGrad",
         [bdy, bx, bs, mean.astype(f32), var.astype(f32)],
         [numeric_grad(train_fn, [bx, bs, bo], k, bdy).astype(f32) for k in range(3)] + [empty, empty], attrs)
    infer_fn = lambda x, s, o: batch_norm(x, s, o, eps32, nchw, pm.astype(np.float64), pv.astype(np.float64))
    case(f"fused_batch_norm_grad_inference_{fmt}", "FusedBatchNormGrad", [bdy, bx, bs, pm, pv],
         [numeric_grad(infer_fn, [bx, bs, bo], k, bdy).astype(f32) for k in range(3)] + [empty, empty],
         attrs + " is_training=b:0")

# ---- Unique, ReverseSequence ------------------------------------------------------------
uq = np.array([4, -1, 4, 7, -1, 0, 7, 4], np.int64)
_, first, inverse = np.unique(uq, return_index=True, return_inverse=True)
order = np.argsort(first)  # numpy sorts the values; TensorFlow keeps the order of appearance
rank_of = np.empty_like(order)
rank_of[order] = np.arange(order.size)
case("unique_int64_order_of_appearance", "Unique", [uq], [uq[np.sort(first)], rank_of[inverse].astype(i32)])
uf = np.array([2.5, -0.0, 2.5, 0.0, 1.0], f32)
case("unique_float_zero_signs_out_idx64", "Unique", [uf], [np.array([2.5, -0.0, 1.0], f32),
                                                           np.array([0, 1, 0, 1, 2], np.int64)], "out_idx=type:int64")


def reverse_sequence(x, lengths, seq_dim, batch_dim):
    out = x.copy()
    for b, n in enumerate(lengths):
        index = [slice(None)] * x.ndim
        index[batch_dim] = b
        index[seq_dim] = slice(0, n)
        rev = [slice(None)] * x.ndim
        rev[batch_dim] = b
        rev[seq_dim] = slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        out[tuple(index)] = x[tuple(rev)]
    return out


rs = floats(3, 5, 2)
case("reverse_sequence_batch0_seq1", "ReverseSequence", [rs, np.array([5, 0, 3], np.int64)],
     [reverse_sequence(rs, [5, 0, 3], 1, 0)], "seq_dim=i:1")
rs2 = floats(4, 2, 3)
case("reverse_sequence_seq0_batch1_int32", "ReverseSequence", [rs2, np.array([2, 4], i32)],
     [reverse_sequence(rs2, [2, 4], 0, 1)], "seq_dim=i:0 batch_dim=i:1")

# ---- batched matrix products --------------------------------------------------------------
bx, by = floats(2, 3, 4), floats(2, 4, 5)
case("batch_matmul", "BatchMatMul", [bx, by], [np.matmul(bx, by)])
bxt, byt = floats(2, 4, 3), floats(2, 5, 4)
case("batch_matmul_adj_both", "BatchMatMul", [bxt, byt], [np.matmul(bxt.transpose(0, 2, 1), byt.transpose(0, 2, 1))],
     "adj_x=b:1 adj_y=b:1")
vx, vy = floats(2, 1, 3, 4), floats(5, 4, 2)
case("batch_matmul_v2_broadcast", "BatchMatMulV2", [vx, vy], [np.matmul(vx, vy)])
vyt = floats(5, 2, 4)
case("batch_matmul_v2_broadcast_adj_y", "BatchMatMulV2", [vx, vyt], [np.matmul(vx, vyt.transpose(0, 2, 1))],
     "adj_y=b:1")
mx = floats(3, 4)
case("batch_matmul_v2_matrix_times_batch", "BatchMatMulV2", [mx, by], [np.matmul(mx, by)])


# ---- pooling --------------------------------------------------------------------------------
def out_size(n, k, s, padding):
    return (n - k + s) // s if padding == "VALID" else (n + s - 1) // s


def pool(x, k, s, padding, reduce):
    n, h, w, c = x.shape
    oh, ow = out_size(h, k[0], s[0], padding), out_size(w, k[1], s[1], padding)
    pad_top = max(0, (oh - 1) * s[0] + k[0] - h) // 2 if padding == "SAME" else 0
    pad_left = max(0, (ow - 1) * s[1] + k[1] - w) // 2 if padding == "SAME" else 0
    out = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * s[0] - pad_top, j * s[1] - pad_left
            window = x[:, max(y0, 0):y0 + k[0], max(x0, 0):x0 + k[1], :]
            out[:, i, j, :] = reduce(window, axis=(1, 2))
    return out


def avg_pool_grad(shape, grad, k, s, padding):
    n, h, w, c = shape
    oh, ow = grad.shape[1:3]
    pad_top = max(0, (oh - 1) * s[0] + k[0] - h) // 2 if padding == "SAME" else 0
    pad_left = max(0, (ow - 1) * s[1] + k[1] - w) // 2 if padding == "SAME" else 0
    out = np.zeros(shape, grad.dtype)
    for i in range(oh):
        for j in range(ow):
            y0, x0 = i * s[0] - pad_top, j * s[1] - pad_left
            ys, xs = slice(max(y0, 0), min(y0 + k[0], h)), slice(max(x0, 0), min(x0 + k[1], w))
            count = (ys.stop - ys.start) * (xs.stop - xs.start)
            out[:, ys, xs, :] += grad[:, i:i + 1, j:j + 1, :] / grad.dtype.type(count)
    return out


px = floats(2, 5, 7, 3)
for padding, k, st in [("VALID", (2, 2), (2, 2)), ("SAME", (3, 3), (2, 2)), ("SAME", (2, 3), (1, 2))]:
    attrs = f"ksize=li:1,{k[0]},{k[1]},1 strides=li:1,{st[0]},{st[1]},1 padding=s:{padding}"
    tag = f"{padding.lower()}_{k[0]}x{k[1]}_stride{st[0]}{st[1]}"
    case("avg_pool_" + tag, "AvgPool", [px], [pool(px, k, st, padding, np.mean)], attrs)
    pooled = pool(px, k, st, padding, np.mean)
    pg = floats(*pooled.shape)
    case("avg_pool_grad_" + tag, "AvgPoolGrad", [np.array(px.shape, i32), pg],
         [avg_pool_grad(px.shape, pg, k, st, padding)], attrs)
    case("max_pool_v2_" + tag, "MaxPoolV2",
         [px, np.array([1, k[0], k[1], 1], i32), np.array([1, st[0], st[1], 1], i32)],
         [pool(px, k, st, padding, np.max)], f"padding=s:{padding}")


# ---- StridedSliceGrad: dy written into the slice of zeros ----------------------------------
def strided_grad(name, begin, end, strides, index, masks=""):
    dy = floats(*s[index].shape)
    want = np.zeros_like(s)
    want[index] = dy
    case("strided_slice_grad_" + name, "StridedSliceGrad",
         [np.array(s.shape, i32), np.array(begin, i32), np.array(end, i32), np.array(strides, i32), dy], [want],
         masks or "-")


strided_grad("basic", [1, 0, 0], [3, 5, 6], [1, 2, 3], np.s_[1:3, 0:5:2, 0:6:3])
strided_grad("negative_stride", [-1, 4, 5], [0, 0, 0], [-1, -2, -1], np.s_[-1:0:-1, 4:0:-2, 5:0:-1])
strided_grad("masks", [9, 1, 9], [0, 3, 0], [1, 1, -1], np.s_[:, 1:3, ::-1], "begin_mask=i:5 end_mask=i:5")
strided_grad("shrink", [2, 0, -1], [3, 5, 0], [1, 1, 1], np.s_[2, :, -1], "shrink_axis_mask=i:5 end_mask=i:2")
strided_grad("ellipsis_newaxis", [0, 0, 1], [0, 0, 3], [1, 1, 1], np.s_[..., np.newaxis, 1:3],
             "ellipsis_mask=i:1 new_axis_mask=i:2")

# ---- InTopKV2: ties count for the target, bad targets and non-finite rows give false --------
pred = np.array([[0.1, 0.8, 0.8, 0.3],
                 [0.5, 0.2, 0.1, 0.9],
                 [0.3, 0.3, 0.3, 0.3],
                 [0.1, nan, 0.2, 0.3],
                 [0.4, 0.1, 0.2, 0.3],
                 [0.4, 0.1, 0.2, 0.3]], f32)
targets = np.array([2, 0, 3, 2, 4, -1], i32)


def in_top_k(p, t, k):
    out = []
    for row, target in zip(p, t):
        if not 0 <= target < row.size or not np.all(np.isfinite(row)):
            out.append(False)
        else:
            out.append(int(np.sum(row > row[target])) < k)
    return np.array(out)


for k in [1, 2, 3]:
    case(f"in_top_k_v2_k{k}", "InTopKV2", [pred, targets, np.array(k, i32)], [in_top_k(pred, targets, k)])
case("in_top_k_v2_int64_targets", "InTopKV2", [pred[:3], targets[:3].astype(np.int64), np.array(2, np.int64)],
     [in_top_k(pred[:3], targets[:3], 2)])
case("in_top_k_attr", "InTopK", [pred, targets], [in_top_k(pred, targets, 2)], "k=i:2")

with open(os.path.join(OUT, "cases.tsv"), "w") as f:
    f.write("\n".join(rows) + "\n")
print(f"numpy_cases: {len(rows)} cases written to {OUT}")
