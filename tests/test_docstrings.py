"""As docstrings dos corretores: a parte escrita à mão diz o que a função recebe e devolve; os casos, os erros e as
regras vêm dos dados do exercício (:func:`helpers.corretor.corretor_de`), e por isso nunca ficam desatualizados."""

import importlib
import inspect
import pkgutil
import pydoc

import numpy as np
import pytest

import helpers.licoes
from helpers.corretor import Caso, Erro, Exercicio, Previsao, Regra, corretor_de, documentacao

#: os títulos das listas geradas; a parte escrita à mão vem antes do primeiro
TITULOS = ("Casos", "Erros que reconhece", "Regras")


def _corretores() -> dict[str, object]:
    """Cada ``check_*`` e ``prever_*`` marcado por ``corretor_de`` em algum módulo de ``helpers.licoes``."""
    achados = {}
    for info in pkgutil.walk_packages(helpers.licoes.__path__, prefix="helpers.licoes."):
        modulo = importlib.import_module(info.name)
        for nome, f in vars(modulo).items():
            if nome.startswith(("check_", "prever_")) and hasattr(f, "exercicios") and f.__module__ == info.name:
                achados[f"{info.name}.{nome}"] = f
    return achados


CORRETORES = _corretores()
CHECKS = {k: f for k, f in CORRETORES.items() if k.rsplit(".", 1)[1].startswith("check_")}


def test_every_check_in_the_lessons_is_found():
    # 28 check_* nas lições (grep "def check_" helpers/licoes): nenhum fica de fora deste teste
    assert len(CHECKS) == 28, sorted(CHECKS)


def _parte_escrita_a_mao(doc: str) -> str:
    inicio = min((doc.find(f"\n\n{t}") for t in TITULOS if f"\n\n{t}" in doc), default=len(doc))
    return doc[:inicio]


@pytest.mark.parametrize("nome", sorted(CORRETORES))
def test_docstring_lists_what_the_exercise_data_holds(nome):
    f = CORRETORES[nome]
    doc = f.__doc__
    assert f.exercicio is f.exercicios[0]
    for ex in f.exercicios:
        de = f" ({ex.nome})" if len(f.exercicios) > 1 else ""
        erros = doc.split(f"Erros que reconhece{de}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert erros == [f"- {n}" for n in ex.nomes_dos_erros()], nome
        if isinstance(ex, Exercicio):
            casos = doc.split(f"Casos{de}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
            assert casos == [f"- {c.descricao}" for c in ex.casos()], nome
            for r in ex.regras:
                assert f"- {r.nome}" in doc.split(f"Regras{de}:\n", 1)[1], nome
            if not ex.regras:
                assert f"Regras{de}:" not in doc
    mao = _parte_escrita_a_mao(doc)
    assert len(mao.split()) >= 8, f"{nome}: a parte escrita à mão deve dizer o que a função recebe e devolve"
    # o que os dados já dizem não é repetido à mão
    for velho in ("Casos:", "Reconhece cada erro", "Erros que reconhece"):
        assert velho not in mao, f"{nome}: {velho!r} na parte escrita à mão"


def test_docstring_is_composed_in_order_and_reads_in_help():
    ex = Exercicio(
        nome="dobro",
        casos=lambda: [Caso("com x = [1, 2]", {"x": np.array([1.0, 2.0])}), Caso("com x = []", {"x": np.zeros(0)})],
        certo=lambda x: 2 * x,
        acerto="Correto!",
        erros=[Erro("somou em vez de dobrar", "Você somou 2.", resposta=lambda x: x + 2)],
        regras=[Regra("com laços", "sem laços.", lambda fn: False)],
    )
    prev = Previsao(nome="p", certo=1.0, revelar="…", erros=[Erro("dobrou", "…", resposta=lambda: 2.0)])

    @corretor_de(ex, prev)
    def check_dobro(fn):
        """Confere ``fn(x)`` = ``2·x``
        (mesma forma de ``x``)."""

    assert check_dobro.exercicio is ex and check_dobro.exercicios == (ex, prev)
    assert check_dobro.__doc__ == (
        "Confere ``fn(x)`` = ``2·x``\n(mesma forma de ``x``).\n\n"
        "Casos (dobro):\n- com x = [1, 2]\n- com x = []\n\n"
        "Erros que reconhece (dobro):\n- somou em vez de dobrar\n\n"
        "Regras (dobro):\n- com laços\n\n"
        "Erros que reconhece (p):\n- dobrou")
    # com um exercício só, os títulos não dizem de qual; sem docstring à mão, só as listas
    assert documentacao(None, [prev]) == "Erros que reconhece:\n- dobrou"
    with pytest.raises(ValueError, match="pelo menos um exercício"):
        corretor_de()


def test_help_of_check_softmax_reads_well():
    from helpers.licoes import softmax

    texto = pydoc.render_doc(softmax.check_softmax, renderer=pydoc.plaintext)
    assert "check_softmax(fn: 'Callable[..., Any]') -> 'bool'" in texto
    corpo = inspect.getdoc(softmax.check_softmax)
    assert corpo.startswith("Confere uma softmax ``fn(x, temperatura=1.0)``")
    # as listas vêm na ordem: casos, erros, regras; cada item numa linha
    i, j, k = (corpo.index(f"\n\n{t}:\n") for t in TITULOS)
    assert i < j < k
    assert "\n- com escores grandes [1000, 1001, 1002]\n" in corpo
    assert "\n- ignorou a temperatura\n" in corpo
    assert corpo.endswith("Regras:\n- usou a softmax pronta")
