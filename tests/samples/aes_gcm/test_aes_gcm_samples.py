#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Drive doca_aes_gcm_encrypt and doca_aes_gcm_decrypt as a person would; TAP.

Usage: test_aes_gcm_samples.py ENCRYPT DECRYPT

Each run checks the exit code, DOCA's pass line, the sample's lines (doca-accel.md
§8.4) and the hex dump; the output bytes are checked against an independent
AES-GCM: OpenSSL's libcrypto called directly through ctypes (EVP), with the key,
IV, tag size and AAD the flags say, laid out as DOCA does (AAD | ciphertext |
tag).  decrypt(encrypt(F)) = F.  Cases that need another device write their own
topology.
"""
import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

from softdoca_testbed import pairs, tap
from softdoca_testbed.pairs import Run, expect_failure, expect_in_order, expect_line
from softdoca_testbed.tap import check

ENCRYPT, DECRYPT = sys.argv[1:3]
TIMEOUT = 60
TMP = tempfile.mkdtemp(prefix="sd-aes-gcm-samples-")

# --- the oracle: libcrypto's EVP through ctypes ------------------------------------------------

_lib = ctypes.CDLL(ctypes.util.find_library("crypto") or "libcrypto.so.3")
for _name in ("EVP_CIPHER_CTX_new", "EVP_aes_128_gcm", "EVP_aes_256_gcm"):
    getattr(_lib, _name).restype = ctypes.c_void_p
_lib.EVP_CIPHER_CTX_free.argtypes = [ctypes.c_void_p]
_lib.EVP_CipherInit_ex.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                   ctypes.c_char_p, ctypes.c_int]
_lib.EVP_CipherUpdate.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int),
                                  ctypes.c_char_p, ctypes.c_int]
_lib.EVP_CipherFinal_ex.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
_lib.EVP_CIPHER_CTX_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
EVP_CTRL_GCM_SET_IVLEN, EVP_CTRL_GCM_GET_TAG = 0x9, 0x10


def gcm_encrypt(key, iv, aad, plain):
    """(ciphertext, 16-byte tag) of AES-GCM with a 12-byte IV."""
    assert len(iv) == 12
    c = _lib.EVP_CIPHER_CTX_new()
    try:
        cipher = _lib.EVP_aes_128_gcm() if len(key) == 16 else _lib.EVP_aes_256_gcm()
        n = ctypes.c_int(0)
        assert _lib.EVP_CipherInit_ex(c, cipher, None, None, None, 1) == 1
        assert _lib.EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, None) == 1
        assert _lib.EVP_CipherInit_ex(c, None, None, key, iv, 1) == 1
        if aad:
            assert _lib.EVP_CipherUpdate(c, None, ctypes.byref(n), aad, len(aad)) == 1
        out = ctypes.create_string_buffer(len(plain) + 16)
        if plain:
            assert _lib.EVP_CipherUpdate(c, out, ctypes.byref(n), plain, len(plain)) == 1
        assert _lib.EVP_CipherFinal_ex(c, ctypes.byref(out, len(plain)), ctypes.byref(n)) == 1
        tag = ctypes.create_string_buffer(16)
        assert _lib.EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1
        return out.raw[:len(plain)], tag.raw
    finally:
        _lib.EVP_CIPHER_CTX_free(c)


def doca_layout(data, key=bytes(32), iv=bytes(12), tag_size=12, aad_size=0):
    """What DOCA's encrypt sample writes for data: AAD | ciphertext | first tag_size bytes of the tag."""
    iv = iv + bytes(12 - len(iv))  # softdoca zero-pads a short IV (docs/aes_gcm.md)
    ct, tag = gcm_encrypt(key, iv, data[:aad_size], data[aad_size:])
    return data[:aad_size] + ct + tag[:tag_size]


# --- runs ---------------------------------------------------------------------------------------


def run(argv, env=None):
    p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, env=env)
    return Run(argv, p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"))


def path(name):
    return os.path.join(TMP, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


HEX_LINE = re.compile(r"^([0-9A-F]{8}): (.{49}) (.{16})$", re.M)


def dumped_bytes(r, word):
    """The bytes of the hex dump after "AES-GCM <word> data:", checked line by line against DOCA's layout."""
    start = r.out.find("AES-GCM %s data:\n" % word)
    check(start >= 0, "no 'AES-GCM %s data:' line" % word, r)
    data = b""
    for line in r.out[start:].split("\n")[1:]:
        m = HEX_LINE.match(line)
        if m is None:
            break
        check(int(m.group(1), 16) == len(data), "dump offset %s" % m.group(1), r)
        chunk = bytes.fromhex(m.group(2))
        ascii_col = "".join(chr(b) if 32 <= b <= 126 else "." for b in chunk).ljust(16)
        check(m.group(3) == ascii_col, "ASCII column %r, expected %r" % (m.group(3), ascii_col), r)
        data += chunk
    return data


def sample_lines(word, out):
    task = "Encrypt" if word == "encrypted" else "Decrypt"
    return [r"Starting the sample$", r"AES-GCM context is running$", task + r" task was done successfully$",
            r"AES-GCM context has been stopped$",
            r"File was %s successfully and saved in: %s$" % (word, re.escape(out)),
            r"AES-GCM %s data:$" % word]


def expect_run(r, word, out, want):
    """Success with DOCA's lines, the output file and the dump both equal to want."""
    pairs.expect_success(r)
    expect_in_order(r, sample_lines(word, out))
    check("Unexpected transition" not in r.both, "the context went through STARTING", r)
    with open(out, "rb") as f:
        got = f.read()
    check(got == want, "output file (%d bytes) differs from the oracle's (%d bytes)" % (len(got), len(want)), r)
    check(dumped_bytes(r, word) == want, "the hex dump differs from the output", r)


def encrypt(src, out, *flags, env=None):
    return run([ENCRYPT, "-f", src, "-o", out, *flags], env)


def decrypt(src, out, *flags, env=None):
    return run([DECRYPT, "-f", src, "-o", out, *flags], env)


TEXT = b"softdoca runs DOCA's AES-GCM samples without a BlueField: \x00\x01\x02 binary too.\n" * 3


def test_defaults_encrypt_with_a_zero_256_bit_key():
    src = write("plain.txt", TEXT)
    r = encrypt(src, path("enc.bin"))
    expect_run(r, "encrypted", path("enc.bin"), doca_layout(TEXT))
    check(r.err.strip() == "", "the library complained on stderr", r)


def test_decrypt_of_encrypt_is_the_file():
    src = write("plain2.txt", TEXT)
    expect_run(encrypt(src, path("enc2.bin")), "encrypted", path("enc2.bin"), doca_layout(TEXT))
    expect_run(decrypt(path("enc2.bin"), path("dec2.txt")), "decrypted", path("dec2.txt"), TEXT)


def test_every_flag():
    data = bytes(range(256)) * 5 + b"tail"
    key = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
    cases = [
        (["-k", key.hex(), "-i", "cafebabefa", "-t", "16", "-a", "7"], dict(key=key, iv=bytes.fromhex("cafebabefa"),
                                                                           tag_size=16, aad_size=7)),
        (["-k", "ff" * 32, "-i", "0123456789abcdef01234567", "-t", "12", "-a", str(len(data))],
         dict(key=b"\xff" * 32, iv=bytes.fromhex("0123456789abcdef01234567"), tag_size=12, aad_size=len(data))),
        (["--key", "AB" * 16, "--iv", "", "--tag-size", "16", "--aad-size", "0"],
         dict(key=b"\xab" * 16, iv=b"", tag_size=16, aad_size=0)),
        (["-i", "abc"], dict(iv=bytes([0xab, 0x0c]))),  # 3 digits: 2 bytes, the odd one the low nibble
    ]
    src = write("flags.bin", data)
    for i, (flags, oracle) in enumerate(cases):
        out, back = path("flags%d.enc" % i), path("flags%d.dec" % i)
        expect_run(encrypt(src, out, *flags), "encrypted", out, doca_layout(data, **oracle))
        expect_run(decrypt(out, back, *flags), "decrypted", back, data)


def test_buffer_lists_give_the_same_bytes():
    data = os.urandom(10000)
    src = write("lists.bin", data)
    want = doca_layout(data, tag_size=16)
    for ns, nd in ((1, 1), (3, 1), (1, 4), (5, 7)):
        out = path("lists_%d_%d.enc" % (ns, nd))
        expect_run(encrypt(src, out, "-t", "16", "-ns", str(ns), "-nd", str(nd)), "encrypted", out, want)
        back = path("lists_%d_%d.dec" % (ns, nd))
        expect_run(decrypt(out, back, "-t", "16", "-ns", str(nd), "-nd", str(ns)), "decrypted", back, data)


def test_inline_and_workers_give_the_same_bytes():
    data = os.urandom(3 << 20)  # above the inline threshold: a worker runs it when there are workers
    src = write("big.bin", data)
    want = doca_layout(data, aad_size=100)
    for workers in ("0", "2"):
        env = dict(os.environ, SOFTDOCA_ENGINE_WORKERS=workers)
        out = path("big_%s.enc" % workers)
        r = encrypt(src, out, "-a", "100", env=env)
        pairs.expect_success(r)
        check(read("big_%s.enc" % workers) == want, "output with %s workers differs" % workers, r)
        r = decrypt(out, path("big_%s.dec" % workers), "-a", "100", env=env)
        pairs.expect_success(r)
        check(read("big_%s.dec" % workers) == data, "decrypt with %s workers differs" % workers, r)


def test_wrong_key_or_altered_file_fails_authentication():
    src = write("auth.txt", TEXT)
    expect_run(encrypt(src, path("auth.enc")), "encrypted", path("auth.enc"), doca_layout(TEXT))
    enc = read("auth.enc")
    tampered = bytearray(enc)
    tampered[10] ^= 1
    write("auth_bad.enc", bytes(tampered))
    for name, flags in (("auth.enc", ["-k", "00" * 31 + "01"]), ("auth_bad.enc", []), ("auth.enc", ["-t", "16"])):
        out = path("auth.dec")
        r = decrypt(path(name), out, *flags)
        expect_failure(r)
        expect_line(r, r"Decrypt task failed: Authentication failure$")
        expect_line(r, r"tag does not match", "err")
        check("Decrypt task was done successfully" not in r.out, "reported a success", r)
        check(read("auth.dec") == b"", "wrote unauthenticated plaintext", r)


def test_bad_flags():
    src = write("flags.txt", TEXT)
    for flags, line in ((["-t", "8"], r"Invalid authentication tag size 8"),
                        (["-k", "0011223344"], r"Invalid string length 10 to represent a key"),
                        (["-k", "zz" * 16], r"Wrong format for input"),
                        (["-i", "00" * 13], r"Invalid string length 26 to represent the initialization vector"),
                        (["-ns", "0"], r"Entered number of source doca_buf: 0, valid value must be >= 1"),
                        (["-nd", "-1"], r"Entered number of destination doca_buf: -1")):
        r = encrypt(src, path("bad.enc"), *flags)
        expect_failure(r)
        expect_line(r, line)
    r = run([ENCRYPT, "-o", path("bad.enc")])
    expect_failure(r)
    r = encrypt(path("missing.txt"), path("bad.enc"))
    expect_failure(r)
    r = decrypt(write("short.bin", b"123"), path("bad.dec"))  # shorter than its 12-byte tag
    expect_failure(r)
    expect_line(r, r"fewer than aad_size \+ tag_size", "err")


def test_help_lists_the_flags():
    r = run([ENCRYPT, "-h"])
    check(r.code == 0, "-h should exit 0", r)
    for flag in ("--pci-addr", "--file", "--output", "--key", "--iv", "--tag-size", "--aad-size", "--num-src-buf",
                 "--num-dst-buf"):
        check(flag in r.both, "usage does not mention " + flag, r)


def with_topology(model=None, caps=None):
    """One DPU function at 03:00.0 (DOCA's default -p) of this model, with these capability overrides."""
    caps_json = ", ".join('"%s": %s' % kv for kv in (caps or {}).items())
    tpath = os.path.join(TMP, "topology-%s-%d.json" % (model or "soft", len(caps_json)))
    with open(tpath, "w") as f:
        f.write('{"devices": [{%s"functions": [{"side": "dpu", "pci_addr": "03:00.0", "ibdev": "mlx5_2", '
                '"iface": "p0", "representors": [], "caps": {%s}}]}]}'
                % ('"model": "%s", ' % model if model else "", caps_json))
    return dict(os.environ, SOFTDOCA_TOPOLOGY=tpath)


def test_bluefield2_has_no_aes_gcm():
    src = write("bf2.txt", TEXT)
    r = encrypt(src, path("bf2.enc"), env=with_topology("bluefield-2"))
    expect_failure(r)
    expect_line(r, r"Failed to open DOCA device for DOCA AES-GCM: ")
    # BlueField-3 and ConnectX-7 have it.
    for model in ("bluefield-3", "connectx-7"):
        r = encrypt(src, path("bf3.enc"), env=with_topology(model))
        expect_run(r, "encrypted", path("bf3.enc"), doca_layout(TEXT))


def test_device_limits():
    src = write("limits.txt", TEXT * 10)
    r = encrypt(src, path("limits.enc"), "-ns", "2", "-nd", "2",
                env=with_topology(caps={"aes_gcm_max_list_num_elem": 3}))
    expect_failure(r)
    expect_line(r, r"Number of doca_buf \[4\] exceed the limitation \[3\]")
    # DOCA's sample skips a file above max_buf_size, logs it, and still reports success.
    r = encrypt(src, path("limits.enc"), env=with_topology(caps={"aes_gcm_max_buf_size": 1024}))
    pairs.expect_success(r)
    expect_line(r, r"File size %d > max buffer size 1024" % len(TEXT * 10))
    check("Encrypt task was done successfully" not in r.out, "ran the task anyway", r)


def main():
    try:
        return tap.run(tap.cases(globals()))
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("SOFTDOCA_TOPOLOGY", "builtin")
    sys.exit(main())
