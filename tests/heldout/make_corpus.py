#!/usr/bin/env python3
# Writes the held-out corpus of hostile lab inputs (pipeline problems,
# teaching models, schedule JSONs, special files) into a folder, with a
# manifest: one line per case, tab-separated: NAME KIND EXPECT ARGS.
#   KIND   problem | model | schedule:BASE | special:KIND
#   EXPECT refuse (must be refused), accept (must be read), either
#   ARGS   extra command-line arguments (space-separated), may be empty
# Written before reading the project's own bad-input corpora, so that it
# measures the readers rather than echoing their tests.
import json
import os
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "heldout"
small = "--small" in sys.argv  # only files of at most 64 KiB (fuzz seeds)
os.makedirs(out, exist_ok=True)
manifest = []


def put(name, kind, expect, data, args=""):
    if isinstance(data, str):
        data = data.encode("utf-8")
    elif not isinstance(data, (bytes, bytearray)):
        data = json.dumps(data, indent=1).encode("utf-8")
    if small and len(data) > 65536:
        return
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    manifest.append((name, kind, expect, args))


def js(obj):
    return json.dumps(obj, indent=1).encode("utf-8")


# ---------------------------------------------------------------- problems
P = "problem"
uniform = {"format": "shardlab-pipeline-problem", "version": 1, "name": "u",
           "devices": 4, "microbatches": 8, "F": 1, "B": 1, "W": 1}
stages = {"microbatches": 4, "stages": [{"F": 1, "B": 1, "W": 1}, {"F": 2, "B": 2, "W": 1}]}
ops = {"devices": 2, "microbatches": 2,
       "operators": [{"name": "a", "F": 1, "B": 1, "W": 1, "devices": [0]},
                     {"name": "b", "F": 1, "B": 1, "W": 1, "devices": [1]}],
       "edges": [["a", "b"]]}


def with_(base, **kw):
    d = json.loads(json.dumps(base))
    d.update(kw)
    return d


def without(base, key):
    d = json.loads(json.dumps(base))
    d.pop(key)
    return d


def raw_name(bad):  # a problem whose name holds raw bytes
    return b'{"devices": 2, "microbatches": 2, "name": "ab' + bad + b'cd"}'


# Bytes: encodings, invalid UTF-8, BOMs, NULs.
put("p_utf8_ff.json", P, "refuse", raw_name(b"\xff"), "--json")
put("p_utf8_overlong.json", P, "refuse", raw_name(b"\xc0\xaf"), "--json")
put("p_utf8_overlong3.json", P, "refuse", raw_name(b"\xe0\x80\xaf"), "--json")
put("p_utf8_surrogate.json", P, "refuse", raw_name(b"\xed\xa0\x80"), "--json")
put("p_utf8_truncated.json", P, "refuse", raw_name(b"\xe2\x82"), "--json")
put("p_utf8_continuation.json", P, "refuse", raw_name(b"\x80"), "--json")
put("p_utf8_above_max.json", P, "refuse", raw_name(b"\xf4\x90\x80\x80"), "--json")
put("p_utf8_f8.json", P, "refuse", raw_name(b"\xf8\x88\x80\x80\x80"), "--json")
put("p_latin1_name.json", P, "refuse", raw_name(b"caf\xe9"), "--normalize")
put("p_utf8_in_key.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "na\xffme": "x"}')
put("p_utf8_in_placement.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "placement": "lin\xc3ear"}')
put("p_utf8_outside_string.json", P, "refuse", b'{"devices": 2, \xff "microbatches": 2}')
put("p_utf8_end_of_file.json", P, "refuse", b'{"devices": 2, "microbatches": 2}\xe2\x82')
put("p_utf8_op_name.json", P, "refuse",
    b'{"devices": 1, "microbatches": 1, "operators": [{"name": "\xfe"}]}', "--json")
put("p_utf8_edge_name.json", P, "refuse",
    b'{"devices": 1, "microbatches": 1, "operators": [{"name": "a"}, {"name": "b"}],'
    b' "edges": [["a", "\xc3"]]}')
put("p_utf8_valid_name.json", P, "accept",
    '{"devices": 2, "microbatches": 2, "name": "caf\u00e9 \u6f22\u5b57 \U0001f600"}', "--json")
put("p_bom_utf8.json", P, "either", b"\xef\xbb\xbf" + js(uniform), "--json")
put("p_bom_utf8_twice.json", P, "refuse", b"\xef\xbb\xbf\xef\xbb\xbf" + js(uniform))
put("p_bom_inside.json", P, "refuse", b'{\xef\xbb\xbf"devices": 2, "microbatches": 2}')
put("p_utf16le_bom.json", P, "refuse", b"\xff\xfe" + js(uniform).decode().encode("utf-16-le"))
put("p_utf16be_bom.json", P, "refuse", b"\xfe\xff" + js(uniform).decode().encode("utf-16-be"))
put("p_utf16le_nobom.json", P, "refuse", js(uniform).decode().encode("utf-16-le"))
put("p_utf32le_bom.json", P, "refuse", b"\xff\xfe\x00\x00" + js(uniform).decode().encode("utf-32-le"))
put("p_nul_middle.json", P, "refuse", b'{"devices": 2,\x00 "microbatches": 2}')
put("p_nul_in_string.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "name": "a\x00b"}')
put("p_all_nul.json", P, "refuse", b"\x00" * 1000)
put("p_escaped_nul.json", P, "either", b'{"devices": 2, "microbatches": 2, "name": "a\\u0000b"}',
    "--json")
put("p_lone_high_surrogate.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "name": "\\ud800"}', "--json")
put("p_lone_low_surrogate.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "name": "\\udc00"}', "--json")
put("p_reversed_surrogates.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "name": "\\udc00\\ud800"}', "--json")
put("p_high_then_letter.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "name": "\\ud83dA"}', "--json")
put("p_escape_ansi.json", P, "either",
    b'{"devices": 2, "microbatches": 2, "name": "\\u001b[31mred"}', "--json")
put("p_raw_tab_in_string.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "name": "a\tb"}')
put("p_raw_newline_in_string.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "name": "a\nb"}')
put("p_crlf.json", P, "accept", js(uniform).replace(b"\n", b"\r\n"), "--json")
put("p_cr_only.json", P, "either", js(uniform).replace(b"\n", b"\r"))
put("p_form_feed_space.json", P, "refuse", b'{\x0c"devices": 2, "microbatches": 2}')
put("p_nbsp_space.json", P, "refuse", b'{\xc2\xa0"devices": 2, "microbatches": 2}')
put("p_smart_quotes.json", P, "refuse",
    '{\u201cdevices\u201d: 2, \u201cmicrobatches\u201d: 2}'.encode())
put("p_single_quotes.json", P, "refuse", b"{'devices': 2, 'microbatches': 2}")
put("p_comment.json", P, "refuse", b'{"devices": 2, // two\n "microbatches": 2}')
put("p_block_comment.json", P, "refuse", b'/* x */ {"devices": 2, "microbatches": 2}')
put("p_trailing_comma_obj.json", P, "refuse", b'{"devices": 2, "microbatches": 2,}')
put("p_trailing_comma_arr.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "mem_cap": [1, 2,]}')
put("p_two_documents.json", P, "refuse", js(uniform) + js(uniform))
put("p_trailing_garbage.json", P, "refuse", js(uniform) + b"x")
put("p_empty.json", P, "refuse", b"")
put("p_whitespace_only.json", P, "refuse", b" \n\t\r\n  ")
put("p_truncated.json", P, "refuse", js(uniform)[:40])
put("p_unterminated_string.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "name": "abc')
put("p_top_array.json", P, "refuse", b"[1, 2, 3]")
put("p_top_string.json", P, "refuse", b'"devices"')
put("p_top_null.json", P, "refuse", b"null")
put("p_gzip.json", P, "refuse", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\x00" * 20)
put("p_png.json", P, "refuse", b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x01" * 30)

# Numbers.
put("p_nan.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "F": NaN}')
put("p_infinity.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "F": Infinity}')
put("p_huge_exponent.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "F": 1e400}')
put("p_tiny_exponent.json", P, "either", b'{"devices": 2, "microbatches": 2, "F": 1e-400}')
put("p_negative_zero.json", P, "either", b'{"devices": 2, "microbatches": 2, "W": -0}')
put("p_plus_sign.json", P, "refuse", b'{"devices": +2, "microbatches": 2}')
put("p_leading_zero.json", P, "refuse", b'{"devices": 02, "microbatches": 2}')
put("p_hex.json", P, "refuse", b'{"devices": 0x2, "microbatches": 2}')
put("p_dot_number.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "F": .5}')
put("p_number_string.json", P, "refuse", b'{"devices": "2", "microbatches": 2}')
put("p_devices_float.json", P, "refuse", b'{"devices": 2.5, "microbatches": 2}')
put("p_devices_1e0.json", P, "either", b'{"devices": 2e0, "microbatches": 2}')
put("p_devices_huge_int.json", P, "refuse",
    b'{"devices": 99999999999999999999999999, "microbatches": 2}')
put("p_devices_2_63.json", P, "refuse", b'{"devices": 9223372036854775808, "microbatches": 2}')
put("p_devices_negative.json", P, "refuse", b'{"devices": -4, "microbatches": 2}')
put("p_devices_zero.json", P, "refuse", b'{"devices": 0, "microbatches": 2}')
put("p_devices_too_many.json", P, "refuse", b'{"devices": 1000000, "microbatches": 2}')
put("p_microbatches_huge.json", P, "refuse", b'{"devices": 2, "microbatches": 4294967296}')
put("p_long_number.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "F": 1' + b"0" * 100000 + b"}")
put("p_long_fraction.json", P, "either",
    b'{"devices": 2, "microbatches": 2, "F": 1.' + b"3" * 100000 + b"}")
put("p_time_huge.json", P, "refuse", with_(uniform, F=1e300))
put("p_time_negative.json", P, "refuse", with_(uniform, B=-1))
put("p_time_tiny.json", P, "either", with_(uniform, F=1e-12, B=1e-12, W=1e-12), "--json")
put("p_time_mixed_scale.json", P, "either", with_(uniform, F=1e9, B=1e-6, W=1), "--json")
put("p_times_sum_overflow.json", P, "either",
    with_(uniform, F=1e9, B=1e9, W=1e9, microbatches=100000, devices=8), "--schedule GPipe --json")
put("p_memory_huge.json", P, "either", with_(uniform, act=1e12, mem_cap=1e12), "--json")
put("p_memory_sum.json", P, "either",
    with_(uniform, act=1e12, keep=1e12, param=1e12, microbatches=100000), "--schedule GPipe")
put("p_memory_fine.json", P, "either", with_(uniform, act=1e-9, keep=1e-10), "--json")
put("p_mem_cap_negative.json", P, "refuse", with_(uniform, mem_cap=-1))
put("p_mem_cap_string.json", P, "refuse", with_(uniform, mem_cap="lots"))
put("p_mem_cap_short.json", P, "refuse", with_(uniform, mem_cap=[1, 2]))
put("p_mem_cap_nested.json", P, "refuse", with_(uniform, mem_cap=[[1], [2], [3], [4]]))

# Zero durations.
put("p_zero_f_b_zbh1.json", P, "refuse", with_(uniform, F=0, B=0), "--schedule ZB-H1 --json")
put("p_zero_all.json", P, "refuse", with_(uniform, F=0, B=0, W=0), "--compare")
put("p_zero_f.json", P, "refuse", with_(uniform, F=0), "--schedule ZB-H2")
put("p_zero_b.json", P, "refuse", with_(uniform, B=0), "--schedule ZB-H1")
put("p_zero_w_zbh1.json", P, "either", with_(uniform, W=0), "--schedule ZB-H1")
put("p_zero_fb.json", P, "refuse", with_(uniform, FB=0), "--schedule DualPipe")
put("p_zero_stage_f.json", P, "refuse",
    {"microbatches": 4, "stages": [{"F": 1}, {"F": 0, "B": 0}]}, "--schedule ZB-H1")
put("p_zero_operator.json", P, "refuse",
    with_(ops, operators=[{"name": "a", "F": 0, "B": 0, "W": 0}, {"name": "b"}]), "--json")
put("p_zero_via_flags.json", P, "refuse", js(uniform), "--F 0 --B 0 --schedule ZB-H1")

# Structure and semantics.
put("p_missing_microbatches.json", P, "refuse", without(uniform, "microbatches"))
put("p_missing_devices.json", P, "refuse", without(uniform, "devices"))
put("p_wrong_format.json", P, "refuse", with_(uniform, format="shardlab-pipeline-schedule"))
put("p_format_number.json", P, "refuse", with_(uniform, format=1))
put("p_version_2.json", P, "refuse", with_(uniform, version=2))
put("p_unknown_key.json", P, "refuse", with_(uniform, microbatch=3))
put("p_key_case.json", P, "refuse", with_(without(uniform, "F"), f=1))
put("p_duplicate_key.json", P, "refuse", b'{"devices": 2, "microbatches": 2, "devices": 3}')
put("p_duplicate_escaped_key.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "d\\u0065vices": 3}')
put("p_keep_above_act.json", P, "refuse", with_(uniform, act=1, keep=2))
put("p_placement_unknown.json", P, "refuse", with_(uniform, placement="zigzag"))
put("p_placement_number.json", P, "refuse", with_(uniform, placement=3))
put("p_placement_device_range.json", P, "refuse", with_(uniform, placement=[0, 1, 2, 9]))
put("p_placement_negative.json", P, "refuse", with_(uniform, placement=[0, -1, 2, 3]))
put("p_placement_three_copies.json", P, "refuse", with_(uniform, placement=[[0], [1], [2]]))
put("p_placement_mixed.json", P, "refuse", with_(uniform, placement=[[0, 1], 2]))
put("p_placement_empty_copy.json", P, "refuse", with_(uniform, placement=[[], []]))
put("p_placement_copies_differ.json", P, "refuse", with_(uniform, placement=[[0, 1], [1, 2, 3]]))
put("p_placement_float.json", P, "refuse", with_(uniform, placement=[0, 1.5, 2, 3]))
put("p_chunks_zero.json", P, "refuse", with_(uniform, chunks=0))
put("p_chunks_huge.json", P, "refuse", with_(uniform, chunks=100000))
put("p_stages_empty.json", P, "refuse", {"microbatches": 2, "stages": []})
put("p_stages_object.json", P, "refuse", {"microbatches": 2, "stages": {"F": 1}})
put("p_stage_not_object.json", P, "refuse", {"microbatches": 2, "stages": [1, 2]})
put("p_stage_unknown_key.json", P, "refuse", {"microbatches": 2, "stages": [{"F": 1, "Bw": 1}]})
put("p_stage_keep.json", P, "refuse", {"microbatches": 2, "stages": [{"act": 1, "keep": 3}]})
put("p_stages_and_operators.json", P, "refuse", with_(stages, operators=ops["operators"]))
put("p_stages_devices_fewer.json", P, "either", with_(stages, devices=1), "--json")
put("p_stages_devices_more.json", P, "either", with_(stages, devices=5), "--json")
put("p_operators_empty.json", P, "refuse", with_(ops, operators=[]))
put("p_operator_no_name.json", P, "refuse", with_(ops, operators=[{"F": 1}]))
put("p_operator_empty_name.json", P, "refuse", with_(ops, operators=[{"name": ""}], edges=[]))
put("p_operator_dup.json", P, "refuse", with_(ops, operators=[{"name": "a"}, {"name": "a"}], edges=[]))
put("p_operator_devices_empty.json", P, "refuse",
    with_(ops, operators=[{"name": "a", "devices": []}], edges=[]))
put("p_operator_devices_desc.json", P, "refuse",
    with_(ops, operators=[{"name": "a", "devices": [1, 0]}], edges=[]))
put("p_operator_devices_range.json", P, "refuse",
    with_(ops, operators=[{"name": "a", "devices": [7]}], edges=[]))
put("p_edge_unknown.json", P, "refuse", with_(ops, edges=[["a", "zz"]]))
put("p_edge_self.json", P, "refuse", with_(ops, edges=[["a", "a"]]))
put("p_edge_cycle.json", P, "refuse", with_(ops, edges=[["a", "b"], ["b", "a"]]))
put("p_edge_three.json", P, "refuse", with_(ops, edges=[["a", "b", "c"]]))
put("p_edge_index_range.json", P, "refuse", with_(ops, edges=[[0, 5]]))
put("p_edge_index_float.json", P, "refuse", with_(ops, edges=[[0, 1.5]]))
put("p_edge_object_missing.json", P, "refuse", with_(ops, edges=[{"from": "a"}]))
put("p_edge_comm_negative.json", P, "refuse", with_(ops, edges=[{"from": "a", "to": "b", "comm": -1}]))
put("p_edges_without_ops.json", P, "refuse", with_(uniform, edges=[]))
put("p_duplicate_edges.json", P, "either", with_(ops, edges=[["a", "b"], ["a", "b"]]), "--json")
put("p_placement_with_ops.json", P, "refuse", with_(ops, placement="linear"))
put("p_interleaved_mismatch.json", P, "either", with_(uniform, microbatches=6, placement="interleaved"),
    "--json")

# Size: long lists, deep nesting, long strings.
put("p_placement_3m.json", P, "refuse",
    b'{"devices": 4, "microbatches": 2, "placement": [' + b",".join([b"0"] * 3000000) + b"]}")
put("p_placement_24mb.json", P, "refuse",
    b'{"devices": 4, "microbatches": 2, "placement": [' + b"0," * 12000000 + b"0]}")
put("p_placement_copies_big.json", P, "refuse",
    b'{"devices": 4, "microbatches": 2, "placement": [[' + b"1," * 500000 + b"1], [" +
    b"2," * 500000 + b"2]]}")
put("p_operators_200k.json", P, "refuse",
    b'{"devices": 1, "microbatches": 1, "operators": [' +
    b",".join(b'{"name": "o%d"}' % i for i in range(200000)) + b"]}")
put("p_operators_60k_chain.json", P, "either",
    b'{"devices": 2, "microbatches": 1, "operators": [' +
    b",".join(b'{"name": "o%d"}' % i for i in range(60000)) + b'], "edges": [' +
    b",".join(b"[%d, %d]" % (i, i + 1) for i in range(59999)) + b"]}", "--json")
put("p_stages_100k.json", P, "refuse",
    b'{"microbatches": 1, "stages": [' + b",".join([b"{}"] * 100000) + b"]}")
put("p_stages_60k.json", P, "either",
    b'{"microbatches": 1, "stages": [' + b",".join([b"{}"] * 60000) + b"]}", "--json")
put("p_mem_cap_2m.json", P, "refuse",
    b'{"devices": 4, "microbatches": 2, "mem_cap": [' + b",".join([b"1"] * 2000000) + b"]}")
put("p_edges_300k.json", P, "refuse",
    b'{"devices": 1, "microbatches": 1, "operators": [{"name": "a"}, {"name": "b"}], "edges": [' +
    b",".join([b'["a","b"]'] * 300000) + b"]}")
put("p_nesting_100k.json", P, "refuse", b"[" * 100000 + b"]" * 100000)
put("p_nesting_object_5k.json", P, "refuse", b'{"a":' * 5000 + b"1" + b"}" * 5000)
put("p_nesting_in_name.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, "name": ' + b"[" * 1000 + b"]" * 1000 + b"}")
put("p_unclosed_nesting.json", P, "refuse", b"[" * 1000000)
put("p_long_name_20mb.json", P, "either",
    b'{"devices": 2, "microbatches": 2, "name": "' + b"x" * 20000000 + b'"}')
put("p_long_key.json", P, "refuse", b'{"' + b"k" * 5000000 + b'": 1}')
put("p_many_keys.json", P, "refuse",
    b"{" + b",".join(b'"k%d": 0' % i for i in range(400000)) + b"}")
put("p_many_unknown_keys_after.json", P, "refuse",
    b'{"devices": 2, "microbatches": 2, ' + b",".join(b'"z%d": 0' % i for i in range(300000)) + b"}")
put("p_whitespace_40mb.json", P, "refuse", b" " * 40000000 + js(uniform))
put("p_newlines_8mb.json", P, "either", b"\n" * 8000000 + js(uniform))
put("p_escapes_long.json", P, "either",
    b'{"devices": 2, "microbatches": 2, "name": "' + b"\\u00e9" * 1000000 + b'"}', "--json")
put("p_big_expansion.json", P, "refuse", with_(uniform, devices=1024, microbatches=100000),
    "--schedule GPipe")
put("p_big_interleave.json", P, "refuse",
    with_(uniform, devices=1024, microbatches=2048, chunks=64, placement="interleaved"), "--json")
put("p_big_operator_expansion.json", P, "refuse",
    b'{"devices": 4, "microbatches": 100000, "operators": [' +
    b",".join(b'{"name": "o%d"}' % i for i in range(50)) + b"]}")

# ------------------------------------------------------------------ models
M = "model"
mlp = {
    "name": "mlp",
    "mesh": {"shape": [8], "axes": ["x"], "bandwidth_GBps": [100], "latency_us": [5],
             "device_tflops": 100, "device_memory_GB": 16},
    "training": True, "dtype_bytes": 2,
    "tensors": {"x": {"shape": [4096, 1024]},
                "W1": {"shape": [1024, 4096], "parameter": True},
                "W2": {"shape": [4096, 1024], "parameter": True}},
    "ops": [{"name": "h", "einsum": "bd,df->bf", "inputs": ["x", "W1"]},
            {"name": "a", "elementwise": "gelu", "inputs": ["h"]},
            {"name": "y", "einsum": "bf,fd->bd", "inputs": ["a", "W2"]}]}


def edited(base, path, value):
    """A deep copy of base with the value at path set (KeyError: removed)."""
    d = json.loads(json.dumps(base))
    cur = d
    for k in path[:-1]:
        cur = cur[k]
    if value is KeyError:
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return d


def m_with(path, value):
    return edited(mlp, path, value)


def mraw(replace_from, replace_to):
    text = js(mlp)
    assert replace_from in text, replace_from  # else the case would be the valid model
    return text.replace(replace_from, replace_to)


A = "--json --time-limit 5"
put("m_utf8_name.json", M, "refuse", mraw(b'"mlp"', b'"ml\xffp"'), A)
put("m_utf8_description.json", M, "refuse", js(m_with(["description"], "x")).replace(b'"x"', b'"\xc3\x28"'), A)
put("m_utf8_tensor_key.json", M, "refuse", mraw(b'"W1"', b'"W\xe21"'), A)
put("m_utf8_axis.json", M, "refuse", mraw(b'"axes": [\n   "x"', b'"axes": [\n   "\xed\xb0\x80"'), A)
put("m_utf8_einsum.json", M, "refuse", mraw(b'"bd,df->bf"', b'"bd,d\xa0f->bf"'), A)
put("m_utf8_function.json", M, "refuse", mraw(b'"gelu"', b'"gel\xf0\x9f"'), A)
put("m_lone_surrogate_name.json", M, "refuse", mraw(b'"mlp"', b'"\\udbff"'), A)
put("m_bom.json", M, "either", b"\xef\xbb\xbf" + js(mlp), A)
put("m_utf16.json", M, "refuse", b"\xff\xfe" + js(mlp).decode().encode("utf-16-le"), A)
put("m_nul.json", M, "refuse", js(mlp)[:30] + b"\x00" + js(mlp)[30:], A)
put("m_unicode_op_name.json", M, "refuse", js(m_with(["ops", 1, "name"], "\u00e4")), A)
put("m_unicode_letters.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "b\u00e9,\u00e9f->bf")), A)
put("m_escaped_name.json", M, "either", js(m_with(["name"], "a\u0000b\u001b")), A)
put("m_empty.json", M, "refuse", b"", A)
put("m_truncated.json", M, "refuse", js(mlp)[:-5], A)
put("m_top_array.json", M, "refuse", b"[]", A)
put("m_unknown_key.json", M, "refuse", js(m_with(["layers"], 3)), A)
put("m_dup_key.json", M, "refuse", mraw(b'"training": true', b'"training": true, "training": false'), A)
put("m_no_mesh.json", M, "refuse", js(m_with(["mesh"], KeyError)), A)
put("m_mesh_array.json", M, "refuse", js(m_with(["mesh"], [8])), A)
put("m_mesh_shape_empty.json", M, "refuse", js(m_with(["mesh", "shape"], [])), A)
put("m_mesh_shape_zero.json", M, "refuse", js(m_with(["mesh", "shape"], [0])), A)
put("m_mesh_shape_negative.json", M, "refuse", js(m_with(["mesh", "shape"], [-8])), A)
put("m_mesh_shape_float.json", M, "refuse", js(m_with(["mesh", "shape"], [2.5])), A)
put("m_mesh_shape_huge.json", M, "refuse", js(m_with(["mesh", "shape"], [2 ** 40])), A)
put("m_mesh_product_huge.json", M, "refuse",
    js(m_with(["mesh"], {"shape": [256, 256, 256], "axes": ["a", "b", "c"],
                         "bandwidth_GBps": 1, "latency_us": 1, "device_tflops": 1})), A)
put("m_mesh_rank_5.json", M, "refuse",
    js(m_with(["mesh"], {"shape": [2, 2, 2, 2, 2], "bandwidth_GBps": 1, "latency_us": 1,
                         "device_tflops": 1})), A)
put("m_mesh_axes_short.json", M, "refuse", js(m_with(["mesh", "axes"], [])), A)
put("m_mesh_axes_dup.json", M, "refuse",
    js(m_with(["mesh"], {"shape": [2, 4], "axes": ["x", "x"], "bandwidth_GBps": 1, "latency_us": 1,
                         "device_tflops": 1})), A)
put("m_mesh_axis_bad_name.json", M, "refuse", js(m_with(["mesh", "axes"], ["1x"])), A)
put("m_mesh_axis_long_name.json", M, "refuse", js(m_with(["mesh", "axes"], ["x" * 100000])), A)
put("m_bandwidth_zero.json", M, "refuse", js(m_with(["mesh", "bandwidth_GBps"], [0])), A)
put("m_bandwidth_negative.json", M, "refuse", js(m_with(["mesh", "bandwidth_GBps"], -5)), A)
put("m_bandwidth_tiny.json", M, "either", js(m_with(["mesh", "bandwidth_GBps"], [1e-6])), A)
put("m_bandwidth_length.json", M, "refuse", js(m_with(["mesh", "bandwidth_GBps"], [1, 2])), A)
put("m_latency_huge.json", M, "either", js(m_with(["mesh", "latency_us"], [1e9])), A)
put("m_latency_over.json", M, "refuse", js(m_with(["mesh", "latency_us"], [1e300])), A)
put("m_tflops_zero.json", M, "refuse", js(m_with(["mesh", "device_tflops"], 0)), A)
put("m_tflops_tiny.json", M, "either", js(m_with(["mesh", "device_tflops"], 1e-9)), A)
put("m_tflops_missing.json", M, "refuse", js(m_with(["mesh", "device_tflops"], KeyError)), A)
put("m_memory_zero.json", M, "refuse", js(m_with(["mesh", "device_memory_GB"], 0)), A)
put("m_memory_tiny.json", M, "either", js(m_with(["mesh", "device_memory_GB"], 1e-9)), A)
put("m_memory_huge.json", M, "either", js(m_with(["mesh", "device_memory_GB"], 1e9)), A)
put("m_dtype_zero.json", M, "refuse", js(m_with(["dtype_bytes"], 0)), A)
put("m_dtype_huge.json", M, "refuse", js(m_with(["dtype_bytes"], 1 << 40)), A)
put("m_training_string.json", M, "refuse", js(m_with(["training"], "yes")), A)
put("m_cost_model_bad.json", M, "refuse", js(m_with(["cost_model"], "free")), A)
put("m_tensors_array.json", M, "refuse", js(m_with(["tensors"], [])), A)
put("m_tensors_empty.json", M, "refuse", js(m_with(["tensors"], {})), A)
put("m_tensor_shape_empty.json", M, "refuse", js(m_with(["tensors", "x", "shape"], [])), A)
put("m_tensor_shape_zero.json", M, "refuse", js(m_with(["tensors", "x", "shape"], [0, 1024])), A)
put("m_tensor_shape_string.json", M, "refuse", js(m_with(["tensors", "x", "shape"], "4096x1024")), A)
put("m_tensor_2_32_squared.json", M, "refuse",
    js(m_with(["tensors"], {"x": {"shape": [2 ** 32, 2 ** 32]},
                            "W1": {"shape": [2 ** 32, 2 ** 32], "parameter": True},
                            "W2": {"shape": [2 ** 32, 2 ** 32], "parameter": True}})), A)
put("m_tensor_2_40_rank8.json", M, "refuse",
    js(m_with(["tensors", "x", "shape"], [2 ** 40] * 8)).replace(b'"bd,df->bf"', b'"bd,df->bf"'), A)
put("m_tensor_2_64.json", M, "refuse", js(m_with(["tensors", "x", "shape"], [2 ** 64, 1024])), A)
put("m_tensor_exabytes.json", M, "refuse",
    js(m_with(["tensors"], {"x": {"shape": [2 ** 30, 2 ** 30]},
                            "W1": {"shape": [2 ** 30, 2 ** 30], "parameter": True},
                            "W2": {"shape": [2 ** 30, 2 ** 30], "parameter": True}})), A)
# 2^64 FLOPs per matmul: costs are doubles, so nothing wraps; the tensors
# (8 TiB each) fit no device, so "no plan fits" (exit 3) is a right answer.
put("m_flops_overflow.json", M, "either",
    js(m_with(["tensors"], {"x": {"shape": [2 ** 21, 2 ** 21]},
                            "W1": {"shape": [2 ** 21, 2 ** 21], "parameter": True},
                            "W2": {"shape": [2 ** 21, 2 ** 21], "parameter": True}})), A)
put("m_rank_9.json", M, "refuse", js(m_with(["tensors", "x", "shape"], [2] * 9)), A)
put("m_tensor_bad_name.json", M, "refuse", mraw(b'"W2": {', b'"2W": {'), A)
put("m_tensor_unknown_key.json", M, "refuse", js(m_with(["tensors", "x", "shap"], [1])), A)
put("m_tensor_dims_length.json", M, "refuse", js(m_with(["tensors", "x", "dims"], "bdz")), A)
put("m_tensor_dims_repeat.json", M, "refuse", js(m_with(["tensors", "x", "dims"], "bb")), A)
put("m_tensor_dims_digit.json", M, "refuse", js(m_with(["tensors", "x", "dims"], "b1")), A)
put("m_tensor_dtype_9.json", M, "refuse", js(m_with(["tensors", "x", "dtype_bytes"], 9)), A)
put("m_parameter_layout.json", M, "refuse", js(m_with(["tensors", "W1", "layout"], {"d": "x"})), A)
put("m_layout_unknown_axis.json", M, "refuse", js(m_with(["tensors", "x", "layout"], {"b": "y"})), A)
put("m_layout_unknown_dim.json", M, "refuse", js(m_with(["tensors", "x", "layout"], {"q": "x"})), A)
put("m_layout_not_divisible.json", M, "refuse",
    js(m_with(["tensors", "x"], {"shape": [4095, 1024], "layout": {"b": "x"}})), A)
put("m_layout_axis_twice.json", M, "refuse", js(m_with(["tensors", "x", "layout"], {"b": "x", "d": "x"})), A)
put("m_layout_number.json", M, "refuse", js(m_with(["tensors", "x", "layout"], 3)), A)
put("m_ops_empty.json", M, "refuse", js(m_with(["ops"], [])), A)
put("m_ops_object.json", M, "refuse", js(m_with(["ops"], {"h": 1})), A)
put("m_op_not_object.json", M, "refuse", js(m_with(["ops", 1], "gelu")), A)
put("m_op_no_name.json", M, "refuse", js(m_with(["ops", 1, "name"], KeyError)), A)
put("m_op_dup_name.json", M, "refuse", js(m_with(["ops", 1, "name"], "h")), A)
put("m_op_name_is_tensor.json", M, "refuse", js(m_with(["ops", 1, "name"], "x")), A)
put("m_op_no_kind.json", M, "refuse", js(m_with(["ops", 1], {"name": "a", "inputs": ["h"]})), A)
put("m_op_two_kinds.json", M, "refuse", js(m_with(["ops", 1, "softmax"], "f")), A)
put("m_op_unknown_input.json", M, "refuse", js(m_with(["ops", 1, "inputs"], ["zz"])), A)
put("m_op_later_input.json", M, "refuse", js(m_with(["ops", 1, "inputs"], ["y"])), A)
put("m_op_self_input.json", M, "refuse", js(m_with(["ops", 1, "inputs"], ["a"])), A)
put("m_op_inputs_empty.json", M, "refuse", js(m_with(["ops", 1, "inputs"], [])), A)
put("m_op_input_number.json", M, "refuse", js(m_with(["ops", 1, "inputs"], [0])), A)
put("m_einsum_no_arrow.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bd,df")), A)
put("m_einsum_operands.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bd->bd")), A)
put("m_einsum_size_clash.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bd,bf->bf")), A)
put("m_einsum_output_letter.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bd,df->bz")), A)
put("m_einsum_repeat_letter.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bb,df->bf")), A)
put("m_einsum_ellipsis.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "...d,df->...f")), A)
put("m_einsum_spaces.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bd, df -> bf")), A)
put("m_einsum_empty_output.json", M, "either", js(m_with(["ops", 0, "einsum"], "bd,df->")), A)
put("m_einsum_two_arrows.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bd,df->bf->bf")), A)
put("m_einsum_long.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "b" * 200000 + "->b")), A)
put("m_einsum_rank_letters.json", M, "refuse", js(m_with(["ops", 0, "einsum"], "bdq,df->bf")), A)
put("m_einsum_number.json", M, "refuse", js(m_with(["ops", 0, "einsum"], 5)), A)
put("m_elementwise_empty.json", M, "refuse", js(m_with(["ops", 1, "elementwise"], "")), A)
put("m_elementwise_broadcast.json", M, "refuse",
    js(m_with(["ops", 1], {"name": "a", "elementwise": "add", "inputs": ["h", "W1"]})), A)
put("m_reduce_unknown.json", M, "refuse",
    js(m_with(["ops", 1], {"name": "a", "reduce": "z", "inputs": ["h"]})), A)
put("m_reduce_two_letters.json", M, "refuse",
    js(m_with(["ops", 1], {"name": "a", "reduce": "bf", "inputs": ["h"]})), A)
put("m_softmax_two_inputs.json", M, "refuse",
    js(m_with(["ops", 1], {"name": "a", "softmax": "f", "inputs": ["h", "h"]})), A)
put("m_flops_negative.json", M, "refuse", js(m_with(["ops", 1, "flops_per_element"], -1)), A)
put("m_flops_huge.json", M, "refuse", js(m_with(["ops", 1, "flops_per_element"], 1e300)), A)
put("m_flops_max.json", M, "either", js(m_with(["ops", 1, "flops_per_element"], 1e6)), A)
put("m_embedding_bad.json", M, "refuse",
    js(m_with(["ops", 0], {"name": "h", "embedding": "bd,df->bf", "inputs": ["x", "W1"]})), A)
put("m_batch_unknown.json", M, "refuse", js(m_with(["batch"], "q")), A)
put("m_batch_long.json", M, "refuse", js(m_with(["batch"], "bd")), A)
put("m_batch_empty.json", M, "refuse", js(m_with(["batch"], "")), A)
put("m_optimizer_huge.json", M, "refuse", js(m_with(["optimizer_state_bytes"], 1000)), A)
put("m_many_tensors.json", M, "refuse",
    b'{"mesh": {"shape": [2], "bandwidth_GBps": 1, "latency_us": 1, "device_tflops": 1}, "tensors": {' +
    b",".join(b'"t%d": {"shape": [2]}' % i for i in range(200000)) +
    b'}, "ops": [{"name": "o", "elementwise": "relu", "inputs": ["t0"]}]}', A)
put("m_many_ops.json", M, "refuse",
    b'{"mesh": {"shape": [2], "bandwidth_GBps": 1, "latency_us": 1, "device_tflops": 1},'
    b' "tensors": {"t": {"shape": [2, 2], "dims": "ab"}}, "ops": [' +
    b",".join(b'{"name": "o%d", "elementwise": "relu", "inputs": ["%s"]}' %
              (i, b"t" if i == 0 else b"o%d" % (i - 1)) for i in range(100000)) + b"]}", A)
put("m_many_inputs.json", M, "refuse",
    js(m_with(["ops", 1, "inputs"], ["h"] * 500000)), A)
put("m_many_layout_keys.json", M, "refuse",
    js(mlp).replace(b'"shape": [\n    4096,', b'"layout": {' +
                    b",".join(b'"k%d": "x"' % i for i in range(100000)) + b'}, "shape": [4096,'), A)
put("m_deep_nesting.json", M, "refuse", b'{"name": ' + b"[" * 300 + b"]" * 300 + b"}", A)
put("m_big_but_valid.json", M, "either",
    b'{"mesh": {"shape": [2], "bandwidth_GBps": 1, "latency_us": 1, "device_tflops": 1},'
    b' "tensors": {"t": {"shape": [64, 64], "dims": "ab"}}, "ops": [' +
    b",".join(b'{"name": "o%d", "elementwise": "relu", "inputs": ["%s"]}' %
              (i, b"t" if i == 0 else b"o%d" % (i - 1)) for i in range(400)) + b"]}",
    "--time-limit 2")

# --------------------------------------------------------------- schedules
# Each is checked against a base problem: u22 (uniform, p 2, m 2), dp
# (DualPipe's example, for FB entries), tt (an operators problem).
base_u22 = {"devices": 2, "microbatches": 2, "F": 1, "B": 1, "W": 1}
base_ops = {"devices": 2, "microbatches": 1,
            "operators": [{"name": "a", "devices": [0]}, {"name": "b", "devices": [1]}],
            "edges": [["a", "b"]]}
with open(os.path.join(out, "base_u22.json"), "w") as f:
    json.dump(base_u22, f)
with open(os.path.join(out, "base_ops.json"), "w") as f:
    json.dump(base_ops, f)
with open(os.path.join(out, "base_dp.json"), "w") as f:
    json.dump({"devices": 4, "microbatches": 4, "F": 1, "B": 1, "W": 1, "FB": 3}, f)


def op(i, device, stage, mb, kind, start, end, **kw):
    d = {"id": i, "device": device, "stage": stage, "chunk": 0, "direction": 0,
         "microbatch": mb, "kind": kind, "start": start, "end": end}
    d.update(kw)
    return d


# ZB-H1 on p 2, m 2, F = B = W = 1 (as the command writes it, trimmed to ops).
good_ops = [op(0, 0, 0, 0, "F", 0, 1), op(1, 0, 0, 1, "F", 1, 2), op(2, 0, 0, 0, "B", 3, 4),
            op(3, 0, 0, 0, "W", 4, 5), op(4, 0, 0, 1, "B", 5, 6), op(5, 0, 0, 1, "W", 6, 7),
            op(6, 1, 1, 0, "F", 1, 2), op(7, 1, 1, 0, "B", 2, 3), op(8, 1, 1, 1, "F", 3, 4),
            op(9, 1, 1, 1, "B", 4, 5), op(10, 1, 1, 0, "W", 5, 6), op(11, 1, 1, 1, "W", 6, 7)]
good = {"format": "shardlab-pipeline-schedule", "version": 1, "name": "ZB-H1",
        "problem": {"placement": "linear", "chunks": 1}, "ops": good_ops}
S = "schedule:base_u22.json"
SC = "--json"


def s_with(mutate):
    d = json.loads(json.dumps(good))
    mutate(d)
    return js(d)


def sraw(a, b):
    return js(good).replace(a, b, 1)


put("s_good.json", S, "accept", js(good), SC)
put("s_utf8_name.json", S, "refuse", sraw(b'"ZB-H1"', b'"ZB\xff"'), SC)
put("s_utf8_kind.json", S, "refuse", sraw(b'"kind": "F"', b'"kind": "\xc6"'), SC)
put("s_lone_surrogate_name.json", S, "refuse", sraw(b'"ZB-H1"', b'"\\ud800x"'), SC)
put("s_bom.json", S, "either", b"\xef\xbb\xbf" + js(good), SC)
put("s_utf16.json", S, "refuse", b"\xff\xfe" + js(good).decode().encode("utf-16-le"), SC)
put("s_empty.json", S, "refuse", b"", SC)
put("s_truncated.json", S, "refuse", js(good)[:200], SC)
put("s_top_array.json", S, "refuse", js(good_ops), SC)
put("s_wrong_format.json", S, "refuse", s_with(lambda d: d.update(format="shardlab-pipeline-problem")), SC)
put("s_no_ops.json", S, "refuse", s_with(lambda d: d.pop("ops")), SC)
put("s_ops_object.json", S, "refuse", s_with(lambda d: d.update(ops={"0": good_ops[0]})), SC)
put("s_ops_empty.json", S, "refuse", s_with(lambda d: d.update(ops=[])), SC)
put("s_op_missing.json", S, "refuse", s_with(lambda d: d["ops"].pop(3)), SC)
put("s_op_duplicate.json", S, "refuse", s_with(lambda d: d["ops"].append(dict(d["ops"][0]))), SC)
put("s_op_not_object.json", S, "refuse", s_with(lambda d: d["ops"].__setitem__(2, [1, 2])), SC)
put("s_op_no_device.json", S, "refuse", s_with(lambda d: d["ops"][2].pop("device")), SC)
put("s_op_device_range.json", S, "refuse", s_with(lambda d: d["ops"][2].update(device=5)), SC)
put("s_op_device_negative.json", S, "refuse", s_with(lambda d: d["ops"][2].update(device=-1)), SC)
put("s_op_wrong_device.json", S, "refuse", s_with(lambda d: d["ops"][2].update(device=1)), SC)
put("s_op_stage_range.json", S, "refuse", s_with(lambda d: d["ops"][2].update(stage=7)), SC)
put("s_op_no_stage.json", S, "refuse", s_with(lambda d: d["ops"][2].pop("stage")), SC)
put("s_op_microbatch_range.json", S, "refuse", s_with(lambda d: d["ops"][2].update(microbatch=9)), SC)
put("s_op_microbatch_float.json", S, "refuse", s_with(lambda d: d["ops"][2].update(microbatch=0.5)), SC)
put("s_op_kind_unknown.json", S, "refuse", s_with(lambda d: d["ops"][2].update(kind="I")), SC)
put("s_op_kind_lower.json", S, "refuse", s_with(lambda d: d["ops"][2].update(kind="b")), SC)
put("s_op_kind_number.json", S, "refuse", s_with(lambda d: d["ops"][2].update(kind=1)), SC)
put("s_op_start_negative.json", S, "refuse", s_with(lambda d: d["ops"][0].update(start=-1)), SC)
put("s_op_end_before_start.json", S, "refuse", s_with(lambda d: d["ops"][0].update(start=1, end=0)), SC)
put("s_op_too_short.json", S, "refuse", s_with(lambda d: d["ops"][0].update(end=0.5)), SC)
put("s_op_too_long.json", S, "refuse", s_with(lambda d: d["ops"][11].update(end=9)), SC)
put("s_op_overlap.json", S, "refuse", s_with(lambda d: d["ops"][1].update(start=0.5, end=1.5)), SC)
put("s_op_dependency.json", S, "refuse", s_with(lambda d: d["ops"][6].update(start=0, end=1)), SC)
# Every op 1e15 later: below 2^53 the times stay exact, so the schedule is
# valid (idle at the start), as the 0.125 shift below.
put("s_op_time_huge.json", S, "either",
    s_with(lambda d: [o.update(start=o["start"] + 1e15, end=o["end"] + 1e15) for o in d["ops"]]), SC)
put("s_op_time_1e300.json", S, "refuse", s_with(lambda d: d["ops"][11].update(start=1e300, end=1e300 + 1)), SC)
put("s_op_time_string.json", S, "refuse", s_with(lambda d: d["ops"][0].update(start="0")), SC)
put("s_op_time_null.json", S, "refuse", s_with(lambda d: d["ops"][0].update(start=None)), SC)
put("s_op_time_fine.json", S, "refuse",
    s_with(lambda d: d["ops"][0].update(start=1e-9, end=1 + 1e-9)), SC)
put("s_op_time_fine_ok.json", S, "either",
    s_with(lambda d: [o.update(start=o["start"] + 0.125, end=o["end"] + 0.125) for o in d["ops"]]), SC)
put("s_op_time_very_fine.json", S, "either",
    s_with(lambda d: [o.update(start=o["start"] + 1e-7, end=o["end"] + 1e-7) for o in d["ops"]]), SC)
put("s_op_direction_range.json", S, "refuse", s_with(lambda d: d["ops"][2].update(direction=1)), SC)
put("s_op_direction_string.json", S, "refuse", s_with(lambda d: d["ops"][2].update(direction="down")), SC)
put("s_fb_no_backward.json", "schedule:base_dp.json", "refuse",
    js({"ops": [op(0, 0, 0, 0, "FB", 0, 3)]}), SC)
put("s_fb_backward_string.json", "schedule:base_dp.json", "refuse",
    js({"ops": [op(0, 0, 0, 0, "FB", 0, 3, backward="B0")]}), SC)
put("s_fb_backward_empty.json", "schedule:base_dp.json", "refuse",
    js({"ops": [op(0, 0, 0, 0, "FB", 0, 3, backward={})]}), SC)
put("s_fb_backward_bad_stage.json", "schedule:base_dp.json", "refuse",
    js({"ops": [op(0, 0, 0, 0, "FB", 0, 3, backward={"stage": 99, "microbatch": 0})]}), SC)
put("s_fb_backward_same_op.json", "schedule:base_dp.json", "refuse",
    js({"ops": [op(0, 0, 0, 0, "FB", 0, 3, backward={"stage": 0, "microbatch": 0})]}), SC)
put("s_placement_bad.json", S, "refuse", s_with(lambda d: d["problem"].update(placement="zigzag")), SC)
put("s_placement_number.json", S, "refuse", s_with(lambda d: d["problem"].update(placement=4)), SC)
put("s_chunks_huge.json", S, "refuse",
    s_with(lambda d: d["problem"].update(placement="interleaved", chunks=1000)), SC)
put("s_chunks_zero.json", S, "refuse", s_with(lambda d: d["problem"].update(chunks=0)), SC)
put("s_problem_string.json", S, "refuse", s_with(lambda d: d.update(problem="u22")), SC)
put("s_name_number.json", S, "refuse", s_with(lambda d: d.update(name=5)), SC)
put("s_ops_1m.json", S, "refuse",
    b'{"ops": [' + b",".join([json.dumps(good_ops[0]).encode()] * 1000000) + b"]}", SC)
put("s_ops_huge_list_numbers.json", S, "refuse",
    b'{"ops": [' + b"0," * 5000000 + b"0]}", SC)
put("s_deep_backward.json", "schedule:base_dp.json", "refuse",
    b'{"ops": [{"device": 0, "kind": "FB", "start": 0, "end": 3, "stage": 0, "microbatch": 0,'
    b' "backward": ' + b'{"backward": ' * 150 + b"1" + b"}" * 150 + b"}]}", SC)
put("s_extra_keys_fine.json", S, "either",
    s_with(lambda d: [o.update(color="red", note="\u00e9") for o in d["ops"]]), SC)
put("s_extra_keys_bad_utf8.json", S, "refuse",
    s_with(lambda d: d["ops"][0].update(note="QQQ")).replace(b"QQQ", b"\xff\xfe"), SC)
put("s_ops_op_on_missing_op.json", "schedule:base_ops.json", "refuse",
    js({"ops": [{"device": 0, "operator": "zz", "microbatch": 0, "kind": "F", "start": 0,
                 "end": 1}]}), SC)
put("s_ops_operator_number.json", "schedule:base_ops.json", "refuse",
    js({"ops": [{"device": 0, "operator": 0, "microbatch": 0, "kind": "F", "start": 0,
                 "end": 1}]}), SC)
put("s_ops_operator_utf8.json", "schedule:base_ops.json", "refuse",
    b'{"ops": [{"device": 0, "operator": "\xe0", "microbatch": 0, "kind": "F", "start": 0, "end": 1}]}',
    SC)
put("s_ops_good.json", "schedule:base_ops.json", "accept",
    js({"ops": [{"device": 0, "operator": "a", "microbatch": 0, "kind": "F", "start": 0, "end": 1},
                {"device": 1, "operator": "b", "microbatch": 0, "kind": "F", "start": 1, "end": 2},
                {"device": 1, "operator": "b", "microbatch": 0, "kind": "B", "start": 2, "end": 3},
                {"device": 1, "operator": "b", "microbatch": 0, "kind": "W", "start": 3, "end": 4},
                {"device": 0, "operator": "a", "microbatch": 0, "kind": "B", "start": 3, "end": 4},
                {"device": 0, "operator": "a", "microbatch": 0, "kind": "W", "start": 4, "end": 5}]}),
    SC)
put("s_bw_kind.json", S, "refuse",
    s_with(lambda d: d["ops"][2].update(kind="BW", end=5)), SC)
put("s_whole_garbage.json", S, "refuse", bytes(range(256)) * 10, SC)
put("s_trailing_nul.json", S, "refuse", js(good) + b"\x00", SC)
put("s_nan_time.json", S, "refuse", sraw(b'"start": 0,', b'"start": NaN,'), SC)

# ------------------------------------------------------ PyTorch CSV files
# `pipeline base_u22.json --import-csv FILE`: one row per rank, one cell per
# step, "{stage}{action}{microbatch}" (F forward, B full backward, I input
# gradient, W weight gradient), empty cells idle; the compute_comms form
# adds UNSHARD, RESHARD, SEND_F, RECV_F, SEND_B, RECV_B, REDUCE_GRAD.
C = "csv:base_u22.json"
CC = "--csv-format compute_comms"
good_csv = "0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1,1B1\r\n"
put("c_good.csv", C, "accept", good_csv)
put("c_good_lf.csv", C, "accept", good_csv.replace("\r\n", "\n"))
put("c_good_idle.csv", C, "accept", "0F0,0F1,,,0B0,,0B1\r\n,1F0,1B0,1F1,,1B1,\r\n")
put("c_split_backward.csv", C, "accept", "0F0,0F1,0I0,0W0,0I1,0W1\n1F0,1I0,1F1,1I1,1W0,1W1\n")
put("c_empty.csv", C, "refuse", b"")
put("c_only_newlines.csv", C, "refuse", b"\n\n\n")
put("c_header_row.csv", C, "refuse", "step0,step1,step2,step3\n" + good_csv)
put("c_rank_column.csv", C, "refuse", "0,0F0,0F1,0B0,0B1\n1,1F0,1B0,1F1,1B1\n")
put("c_utf16.csv", C, "refuse", "\ufeff" .encode("utf-16-le") + good_csv.encode("utf-16-le"))
put("c_utf8_bom.csv", C, "either", b"\xef\xbb\xbf" + good_csv.encode())
put("c_bad_utf8.csv", C, "refuse", b"0F0,0F1,0B0,0B\xff\n1F0,1B0,1F1,1B1\n")
put("c_nul.csv", C, "refuse", b"0F0,0F1,0B0,0B1\n1F0,1B0\x00,1F1,1B1\n")
put("c_stage_out.csv", C, "refuse", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,7B1\n")
put("c_mb_out.csv", C, "refuse", "0F0,0F5,0B0,0B5\n1F0,1B0,1F1,1B1\n")
put("c_negative.csv", C, "refuse", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,-1B1\n")
put("c_action_x.csv", C, "refuse", "0F0,0X1,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_action_lower.csv", C, "refuse", "0f0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_duplicate.csv", C, "refuse", "0F0,0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_missing_backward.csv", C, "refuse", "0F0,0F1,0B0\n1F0,1B0,1F1,1B1\n")
put("c_missing_forward.csv", C, "refuse", "0F0,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_three_rows.csv", C, "refuse", good_csv + "1F0\r\n")
put("c_one_row.csv", C, "refuse", "0F0,0F1,0B0,0B1\n")
put("c_spaces.csv", C, "either", "0F0, 0F1 ,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_quoted.csv", C, "either", '"0F0","0F1",0B0,0B1\n1F0,1B0,1F1,1B1\n')
put("c_unterminated_quote.csv", C, "refuse", '"0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n')
put("c_wrong_rank.csv", C, "refuse", "0F0,1F1,0B0,0B1\n1F0,1B0,0F1,1B1\n")
put("c_deadlock.csv", C, "refuse", "0B0,0F0,0F1,0B1\n1F0,1B0,1F1,1B1\n")
put("c_huge_mb.csv", C, "refuse", "0F0,0F99999999999999999999999,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_huge_stage.csv", C, "refuse", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,99999999999999999999B1\n")
put("c_long_cell.csv", C, "refuse", "0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1" + "7" * 1000000 + "\n")
put("c_many_empty_cells.csv", C, "either", "0F0,0F1,0B0,0B1" + "," * 30000000 + "\n1F0,1B0,1F1,1B1\n")
put("c_many_rows.csv", C, "refuse", good_csv * 400000)
put("c_mixed_line_ends.csv", C, "either", "0F0,0F1,0B0,0B1\r1F0,1B0,1F1,1B1\n")
put("c_comms_as_compute.csv", C, "either",
    "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
    "1RECV_F0,1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1\n")
put("c_compute_as_comms.csv", C, "either", good_csv, CC)
put("c_comms_send_no_recv.csv", C, "refuse",
    "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
    "1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1\n", CC)
put("c_comms_bad_token.csv", C, "refuse",
    "0F0,0SEND_X0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
    "1RECV_F0,1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1\n", CC)
put("c_tabs.csv", C, "refuse", "0F0\t0F1\t0B0\t0B1\n1F0\t1B0\t1F1\t1B1\n")
put("c_semicolons.csv", C, "refuse", "0F0;0F1;0B0;0B1\n1F0;1B0;1F1;1B1\n")
put("c_trailing_garbage.csv", C, "refuse", "0F0,0F1x,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_w_without_i.csv", C, "refuse", "0F0,0F1,0W0,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_i_and_b.csv", C, "refuse", "0F0,0F1,0I0,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_no_mb.csv", C, "refuse", "0F0,0F,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_no_stage.csv", C, "refuse", "0F0,F1,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_fraction.csv", C, "refuse", "0F0,0F1.5,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_plus.csv", C, "refuse", "+0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_exponent.csv", C, "refuse", "0F0,0F1e0,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_overlap_bare.csv", C, "refuse", "0F0,OVERLAP_F_B,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_json_instead.csv", C, "refuse", js(base_u22))
put("c_gzip.csv", C, "refuse", b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(64)))
put("c_binary.csv", C, "refuse", bytes(range(256)) * 40)
put("c_digits_only.csv", C, "refuse", "00,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n")
put("c_control_char.csv", C, "refuse", "0F0,0F1,0B0,0B1\n1F0,1B\x070,1F1,1B1\n")

# ------------------------------------------------------ plan-lab inputs
# `plan MODEL --gpus 8 --global-batch 16 [--cluster FILE]`: cluster files
# and Hugging Face config.json files, read by the plan lab.
L = "cluster"
H = "hfconfig"
cluster = {"nodes": 1, "gpus_per_node": 8,
           "gpu": {"name": "A100-80GB", "peak_tflops": 312, "memory_GB": 80},
           "intra_node": {"bandwidth_GBps": 300, "latency_us": 5},
           "inter_node": {"bandwidth_GBps": 25, "latency_us": 10}}


def cl_with(path, value):
    return edited(cluster, path, value)


put("l_good.json", L, "accept", js(cluster))
put("l_empty.json", L, "refuse", b"")
put("l_array.json", L, "refuse", b"[]")
put("l_no_gpu.json", L, "refuse", js(cl_with(["gpu"], KeyError)))
put("l_zero_nodes.json", L, "refuse", js(cl_with(["nodes"], 0)))
put("l_huge_nodes.json", L, "refuse", js(cl_with(["nodes"], 10 ** 12)))
put("l_frac_gpus.json", L, "refuse", js(cl_with(["gpus_per_node"], 2.5)))
put("l_negative_bw.json", L, "refuse", js(cl_with(["intra_node", "bandwidth_GBps"], -300)))
put("l_zero_bw.json", L, "refuse", js(cl_with(["inter_node", "bandwidth_GBps"], 0)))
put("l_string_tflops.json", L, "refuse", js(cl_with(["gpu", "peak_tflops"], "312")))
put("l_tiny_memory.json", L, "refuse", js(cl_with(["gpu", "memory_GB"], 0)))
put("l_typo_key.json", L, "refuse", js(cl_with(["gpu", "memory_gb"], 80)))
put("l_unknown_gpu.json", L, "either", js(cl_with(["gpu", "name"], "Z9000")))
put("l_bad_utf8_name.json", L, "refuse",
    js(cluster).replace(b"A100-80GB", b"A100\xc3\x28"))
put("l_duplicate_key.json", L, "refuse", b'{"nodes": 1, "nodes": 2}')
put("l_efficiency_over_one.json", L, "refuse", js(cl_with(["gpu", "matmul_efficiency"], 1.5)))
put("l_nan.json", L, "refuse", js(cluster).replace(b"312", b"NaN"))
put("l_truncated.json", L, "refuse", js(cluster)[:-20])
hf = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
      "num_attention_heads": 32, "num_key_value_heads": 32, "num_hidden_layers": 32,
      "vocab_size": 32000, "max_position_embeddings": 4096, "tie_word_embeddings": False}


def hf_with(**kw):
    d = dict(hf)
    for k, v in kw.items():
        if v is None:
            d.pop(k)
        else:
            d[k] = v
    return d


put("h_good.json", H, "accept", js(hf))
put("h_unknown_family.json", H, "refuse", js(hf_with(model_type="bert")))
put("h_no_hidden.json", H, "refuse", js(hf_with(hidden_size=None)))
put("h_zero_layers.json", H, "refuse", js(hf_with(num_hidden_layers=0)))
put("h_heads_not_dividing.json", H, "refuse", js(hf_with(num_attention_heads=30)))
put("h_kv_not_dividing.json", H, "refuse", js(hf_with(num_key_value_heads=5)))
put("h_huge_hidden.json", H, "refuse", js(hf_with(hidden_size=2 ** 40, num_attention_heads=2 ** 20,
                                                 num_key_value_heads=2 ** 20)))
put("h_huge_vocab.json", H, "refuse", js(hf_with(vocab_size=2 ** 62)))
put("h_negative_inter.json", H, "refuse", js(hf_with(intermediate_size=-1)))
put("h_string_layers.json", H, "refuse", js(hf_with(num_hidden_layers="32")))
put("h_float_hidden.json", H, "refuse", js(hf_with(hidden_size=4096.5)))
put("h_moe_no_experts.json", H, "refuse", js(hf_with(model_type="mixtral", num_local_experts=0,
                                                    num_experts_per_tok=2)))
put("h_moe_topk_over.json", H, "refuse", js(hf_with(model_type="mixtral", num_local_experts=8,
                                                   num_experts_per_tok=9)))
put("h_bom.json", H, "either", b"\xef\xbb\xbf" + js(hf))
put("h_bad_utf8.json", H, "refuse", js(hf).replace(b"llama", b"lla\xffma"))
put("h_array.json", H, "refuse", b"[1, 2, 3]")
put("h_deep.json", H, "refuse", b"[" * 100000 + b"]" * 100000)

# ---------------------------------------------------------- special files
put("x_directory", "special:dir", "refuse", b"")
put("x_missing", "special:missing", "refuse", b"")
put("x_dev_zero", "special:/dev/zero", "refuse", b"")
put("x_dev_urandom", "special:/dev/urandom", "refuse", b"")
put("x_dev_null", "special:/dev/null", "refuse", b"")
put("x_dangling_link", "special:dangling", "refuse", b"")
put("x_model_dir", "special:dir-model", "refuse", b"")
put("x_model_dev_zero", "special:/dev/zero-model", "refuse", b"")
put("x_schedule_dev_zero", "special:/dev/zero-schedule", "refuse", b"")
put("x_schedule_dir", "special:dir-schedule", "refuse", b"")

with open(os.path.join(out, "manifest.tsv"), "w") as f:
    for row in manifest:
        f.write("\t".join(row) + "\n")
print(f"{len(manifest)} cases in {out}")
