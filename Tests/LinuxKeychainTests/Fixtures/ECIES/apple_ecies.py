"""Apple's ECIES (SecKeyCreateEncryptedData's eciesEncryption... algorithms), written from its
description with Python's `cryptography` primitives: the independent side that SecKeyECIESTests
checks the Swift implementation against.

Reads one JSON request on stdin and writes the result's hex on stdout:
  {"op": "encrypt", "bits": 256, "key": PUBLIC_X963_HEX, "data": HEX, "digest": "SHA256", "variable_iv": false}
  {"op": "decrypt", "bits": 256, "key": PRIVATE_X963_HEX (04||X||Y||K), "data": HEX, ...}
Exits 1 when a ciphertext does not authenticate.
"""
import json
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.x963kdf import X963KDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

CURVES = {256: ec.SECP256R1(), 384: ec.SECP384R1(), 521: ec.SECP521R1()}
DIGESTS = {"SHA1": hashes.SHA1, "SHA224": hashes.SHA224, "SHA256": hashes.SHA256,
           "SHA384": hashes.SHA384, "SHA512": hashes.SHA512}


def symmetric(shared, ephemeral_point, request):
    key_length = 32 if request["bits"] > 256 else 16
    length = key_length + (16 if request["variable_iv"] else 0)
    derived = X963KDF(DIGESTS[request["digest"]](), length, ephemeral_point).derive(shared)
    iv = derived[key_length:] if request["variable_iv"] else bytes(16)
    return AESGCM(derived[:key_length]), iv


def main():
    request = json.load(sys.stdin)
    curve = CURVES[request["bits"]]
    key = bytes.fromhex(request["key"])
    data = bytes.fromhex(request["data"])
    field = (request["bits"] + 7) // 8
    if request["op"] == "encrypt":
        recipient = ec.EllipticCurvePublicKey.from_encoded_point(curve, key)
        ephemeral = ec.generate_private_key(curve)
        point = ephemeral.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        cipher, iv = symmetric(ephemeral.exchange(ec.ECDH(), recipient), point, request)
        print((point + cipher.encrypt(iv, data, None)).hex())
        return 0
    private = ec.derive_private_key(int.from_bytes(key[1 + 2 * field:], "big"), curve)
    point = data[:1 + 2 * field]
    peer = ec.EllipticCurvePublicKey.from_encoded_point(curve, point)
    cipher, iv = symmetric(private.exchange(ec.ECDH(), peer), point, request)
    try:
        print(cipher.decrypt(iv, data[1 + 2 * field:], None).hex())
    except InvalidTag:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
