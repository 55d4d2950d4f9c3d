"""Para os testes das lições: conferir que um corretor dá nome a cada um dos seus erros clássicos."""

from collections.abc import Callable
from typing import Any

from helpers.corretor import Exercicio, Veredito, corrigir


def confere_erro_nomeado(ex: Exercicio, exemplos: dict[str, Any], nome: str) -> Veredito:
    """``exemplos[nome]`` é uma função com o erro (ou o par ``(função, trecho da explicação)``).

    Confere que todo erro nomeado de ``ex`` tem um exemplo (e vice-versa), que o corretor reprova o
    exemplo com **esse** nome, que a mensagem começa com ❌, traz o trecho esperado e não cita número de
    seção (que muda quando o notebook muda).
    """
    assert sorted(exemplos) == sorted(ex.nomes_dos_erros()), "todo erro nomeado precisa de um exemplo (e vice-versa)"
    exemplo = exemplos[nome]
    fn: Callable[..., Any]
    fn, trecho = exemplo if isinstance(exemplo, tuple) else (exemplo, "")
    veredito = corrigir(ex, fn)
    assert veredito.ok is False and veredito.erro == nome, veredito.mensagem
    assert veredito.mensagem.startswith("❌") and trecho in veredito.mensagem, veredito.mensagem
    assert "seção" not in veredito.mensagem, veredito.mensagem
    return veredito
