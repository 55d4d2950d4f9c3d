"""Os números que o estudante lê: milhares, bytes, subscritos e vetores, escritos de um jeito só."""

from helpers import formato


def test_bytes_legiveis():
    assert formato.bytes_legiveis(2 * 2**30) == "2.00 GiB"
    assert formato.bytes_legiveis(512 * 2**20) == "512 MiB"
    assert formato.bytes_legiveis(64 * 2**20) == "64.0 MiB"
    assert formato.bytes_legiveis(16 * 2**10) == "16.0 KiB"
    assert formato.bytes_legiveis(128 * 2**30) == "128 GiB"
    assert formato.bytes_legiveis(100) == "100 bytes"
    assert formato.bytes_legiveis(3 * 2**40) == "3.00 TiB"


def test_milhares_subscritos_e_vetores():
    assert formato.milhares(536870912) == "536 870 912"
    assert formato.milhares(0.125) == "0.125"
    assert formato.numero_legivel(4.3e9) == "4.3 bi" and formato.numero_legivel(999) == "999"
    assert formato.subscrito(12) == "₁₂" and formato.sobrescrito(-3) == "⁻³"
    assert formato.vetor([0.45553, 0.22457]) == "[0.4555, 0.2246]"
    assert formato.par([0.7071, -1.0]) == "(0.71, -1.00)"
