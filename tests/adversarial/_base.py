"""A suíte adversária dos corretores: submissões escritas como um estudante erra (e como quem tenta enganar o
corretor), cada uma com o veredito esperado.

Cada lição tem o seu arquivo ``test_adv_<lição>.py`` com uma lista ``SUBMISSOES``; :mod:`test_resumo` junta todas
e confere o tamanho da suíte e que o retorno genérico (só "esperava … veio …", só a forma, só a exceção) é raro.
As submissões **não** saem das listas de erros dos próprios corretores: são escritas à mão, como código de estudante.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from helpers.corretor import Exercicio, Previsao, Veredito, corrigir, corrigir_previsao

#: os vereditos que não dizem o que deu errado: só a comparação, só a forma, só a exceção
GENERICOS = {"valor", "forma", "excecao"}


@dataclass(frozen=True)
class Submissao:
    """Uma tentativa de estudante: ``resposta`` é a função (num exercício) ou o valor (numa previsão);
    ``esperado`` é ``"ok"`` ou o nome do erro que o veredito deve dar (``Veredito.erro``)."""

    corretor: Exercicio | Previsao
    resposta: Any
    esperado: str
    descricao: str

    @property
    def certa(self) -> bool:
        return self.esperado == "ok"


def veredito(s: Submissao) -> Veredito:
    if isinstance(s.corretor, Previsao):
        return corrigir_previsao(s.corretor, s.resposta)
    return corrigir(s.corretor, s.resposta)


def confere(s: Submissao) -> Veredito:
    """O veredito bate com o esperado; um erro nunca é aceito, um acerto nunca é recusado."""
    v = veredito(s)
    if s.certa:
        assert v.ok, f"{s.descricao}: uma resposta certa foi recusada:\n{v.mensagem}"
    else:
        assert not v.ok, f"{s.descricao}: uma resposta errada foi aceita:\n{v.mensagem}"
        assert v.erro == s.esperado, f"{s.descricao}: esperava o erro «{s.esperado}», veio «{v.erro}»:\n{v.mensagem}"
        assert v.erro != "corretor", v.mensagem
    return v


def ids(submissoes: list[Submissao]) -> list[str]:
    return [s.descricao for s in submissoes]


Funcao = Callable[..., Any]
