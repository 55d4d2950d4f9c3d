"""A checagem do ambiente diz o que fazer quando algo falta ou é antigo."""

from helpers.ambiente import REQUISITOS, _versao, verificar_ambiente


def _tudo(v="99.0"):
    return {r.pacote: v for r in REQUISITOS}


def test_real_environment_is_ok(capsys):
    assert verificar_ambiente() is True
    assert "Tudo certo" in capsys.readouterr().out


def test_missing_package(capsys):
    versoes = _tudo()
    versoes["ipywidgets"] = None
    assert verificar_ambiente((3, 11), versoes) is False
    out = capsys.readouterr().out
    assert "❌ ipywidgets não encontrado" in out and "pip install -r requirements.txt" in out


def test_old_package_and_old_python(capsys):
    versoes = _tudo()
    versoes["numpy"] = "1.26.4"
    assert verificar_ambiente((3, 9), versoes) is False
    out = capsys.readouterr().out
    assert "numpy 1.26.4 é antigo demais (precisa de 2.0" in out
    assert "Python 3.9" in out and "3.10" in out


def test_version_parsing():
    assert _versao("2.4.6") == (2, 4, 6)
    assert _versao("4.5.post3") == (4, 5)
    assert _versao("8.1.0rc1") == (8, 1, 0)
    assert _versao("0.11.0") >= (0, 11)
