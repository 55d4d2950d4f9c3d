"""A suíte adversária inteira: do tamanho pedido, e com pouco retorno genérico."""

import importlib
from pathlib import Path

from tests.adversarial._base import GENERICOS, veredito

MODULOS = sorted(p.stem for p in Path(__file__).parent.glob("test_adv_*.py"))


def _todas():
    todas = []
    for nome in MODULOS:
        todas += importlib.import_module(f"tests.adversarial.{nome}").SUBMISSOES
    return todas


def test_the_suite_is_big_enough_and_covers_every_lesson():
    todas = _todas()
    erradas = [s for s in todas if not s.certa]
    certas = [s for s in todas if s.certa]
    assert len(erradas) >= 250 and len(certas) >= 60, (len(erradas), len(certas))
    licoes = {p.stem for p in (Path(__file__).parents[2] / "helpers" / "licoes").iterdir()
              if not p.name.startswith("_") and (p.suffix == ".py" or (p / "__init__.py").exists())}
    faltam = {f"test_adv_{licao}" for licao in licoes} - set(MODULOS)
    assert len(licoes) == 12 and not faltam, f"lições sem submissões adversárias: {sorted(faltam)}"


def test_at_most_one_in_ten_caught_mistakes_gets_only_generic_feedback():
    erradas = [s for s in _todas() if not s.certa]
    genericas = [s.descricao for s in erradas if veredito(s).erro in GENERICOS]
    assert len(genericas) <= len(erradas) / 10, f"{len(genericas)} de {len(erradas)}: {genericas}"
