"""Prever, depois conferir: a caixa onde o estudante se compromete com um número antes de ver a resposta.

Num notebook, a previsão é uma caixa de texto com um botão (funciona igual no JupyterLab e no Voilà)::

    sua_previsao = licao.prever_dobro()      # digite o número na caixa e clique em «Conferir»

e tudo o que mostra a resposta fica num bloco de revelação, que roda normalmente mas só aparece na
página **depois** que a previsão foi conferida::

    with sua_previsao.revelar():
        print("softmax(2·z) =", softmax(2 * z))

Quem abre o notebook gravado (no JupyterLab, no GitHub, num PDF) ou o roda inteiro de uma vez (no Voilà,
no nbval) não vê a resposta antes de prever: o que o bloco imprime e as figuras que ele desenha ficam
guardados no kernel e só vão para a página quando o botão é clicado. Um erro dentro do bloco não é
escondido: ele sobe como em qualquer célula.
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as W
from IPython.display import display
from IPython.utils.capture import capture_output

from .corretor import PENDENTE, Previsao, Veredito, corrigir_previsao
from .respostas import RespostaInvalida, ler_numero

#: o que uma página sem kernel (GitHub, PDF, o arquivo gravado) mostra no lugar da caixa e da revelação
TEXTO_CAIXA = "[caixa de previsão: rode o notebook, escreva a sua previsão e clique em «Conferir»]"
TEXTO_REVELACAO = "[a resposta aparece aqui depois que você conferir a sua previsão]"
#: as classes CSS da caixa e de uma revelação na página (os testes de navegador as procuram)
CLASSE_CAIXA, CLASSE_REVELACAO = "caixa-previsao", "revelacao-previsao"
AVISO_REVELACAO = "🔒 A resposta aparece aqui depois que você conferir a sua previsão na caixa acima."

#: vereditos que não contam como previsão feita (nada a revelar ainda): vazio ou ilegível
_NAO_CONTA = ("pendente", "tipo")



def ler_digitado(texto: str) -> Any:
    """O que o estudante digitou na caixa: um número escrito à brasileira (``"0,576"``, ``"-3"``, ``"1 024"``)
    vira ``int`` ou ``float``; vazio vira ``None``; qualquer outra coisa (``"k2"``, ``"(2, 3, 6)"``, ``"4.160"``,
    que é ambíguo) fica texto, para o formato da previsão ler — e, se for o caso, perguntar."""
    limpo = texto.strip().replace("\u00a0", " ")
    if not limpo:
        return None
    try:
        lido = ler_numero(limpo)
    except RespostaInvalida:
        return limpo
    if lido is None or lido.unidade:
        return limpo
    return int(lido.valor) if lido.casas == 0 and lido.valor.is_integer() else lido.valor


def _em_html(mensagem: str) -> str:
    """A mensagem de um veredito (texto com ``**negrito**`` e ``código``) como HTML seguro."""
    texto = html.escape(mensagem)
    texto = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", texto)
    texto = re.sub(r"`(.+?)`", r"<code>\1</code>", texto)
    return texto.replace("\n", "<br>")


class _Revelacao:
    """Um bloco de revelação: as saídas guardadas e o lugar na página onde elas aparecem."""

    def __init__(self, saidas: tuple[dict, ...]):
        self.saidas = saidas
        self.aviso = W.HTML(f"<i>{html.escape(AVISO_REVELACAO)}</i>")
        self.lugar = W.Output()
        self.widget = W.VBox([self.aviso, self.lugar])
        self.widget.add_class(CLASSE_REVELACAO)

    def mostrar(self) -> None:
        self.aviso.layout.display = "none"
        self.lugar.outputs = self.saidas

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        dados = self.widget._repr_mimebundle_(**kwargs)
        dados["text/plain"] = TEXTO_REVELACAO
        return dados


class CaixaDePrevisao:
    """A caixa de uma previsão: texto, botão «Conferir» e o veredito; guarda as revelações até a conferência.

    ``corrigir(valor) -> Veredito`` corrige a previsão já lida (``None`` quando a caixa está vazia). A primeira
    previsão legível é a que vale: depois dela a caixa trava, o veredito fica e as revelações aparecem.
    """

    def __init__(self, corrigir: Callable[[Any], Veredito], exemplo: str = "") -> None:
        self._corrigir = corrigir
        self.entrada = W.Text(placeholder=f"por exemplo {exemplo}" if exemplo else "", description="Sua previsão:",
                              style={"description_width": "initial"}, layout=W.Layout(width="320px"))
        self.botao = W.Button(description="Conferir", button_style="primary", icon="check")
        self.mensagem = W.HTML()
        self.widget = W.VBox([W.HBox([self.entrada, self.botao]), self.mensagem])
        self.widget.add_class(CLASSE_CAIXA)
        self.veredito: Veredito | None = None
        self._revelacoes: list[_Revelacao] = []
        self.botao.on_click(lambda _botao: self.conferir(self.entrada.value))

    @property
    def conferida(self) -> bool:
        """O estudante já se comprometeu com uma previsão legível?"""
        return self.veredito is not None

    def conferir(self, previsao: Any) -> bool:
        """Confere ``previsao`` (o texto da caixa ou um valor Python) e devolve ``True`` se ela estava certa.

        Uma previsão vazia ou ilegível só pede outra; a primeira legível trava a caixa e revela a resposta."""
        if self.conferida:
            return bool(self.veredito and self.veredito.ok)
        valor = ler_digitado(previsao) if isinstance(previsao, str) else previsao
        if valor is None:
            self.mensagem.value = _em_html(f"{PENDENTE} Escreva a sua previsão na caixa antes de conferir.")
            return False
        veredito = self._corrigir(valor)
        if veredito.erro == "tipo" and isinstance(previsao, str) and not isinstance(valor, str):
            # "2" pode ser um nome ("k2" sem o k) para uma previsão que espera texto: vale o que foi digitado
            como_texto = self._corrigir(previsao.strip())
            veredito = como_texto if como_texto.erro != "tipo" else veredito
        self.mensagem.value = _em_html(veredito.mensagem)
        if veredito.erro in _NAO_CONTA:
            return False
        self.veredito = veredito
        if isinstance(previsao, str):
            self.entrada.value = previsao
        self.entrada.disabled = self.botao.disabled = True
        for revelacao in self._revelacoes:
            revelacao.mostrar()
        return veredito.ok

    @contextmanager
    def revelar(self) -> Iterator[None]:
        """Roda o bloco agora, mas só põe o que ele imprime e desenha na página depois da conferência.

        As figuras do matplotlib abertas no bloco são mostradas dentro dele (e fechadas); o que for para o
        stderr (um aviso) continua indo para o stderr da célula."""
        pyplot = sys.modules.get("matplotlib.pyplot")
        antes = set(pyplot.get_fignums()) if pyplot else set()
        with capture_output(stdout=True, stderr=True, display=True) as capturado:
            yield
            pyplot = sys.modules.get("matplotlib.pyplot")
            for numero in sorted(set(pyplot.get_fignums()) - antes) if pyplot else []:
                figura = pyplot.figure(numero)
                display(figura)
                pyplot.close(figura)
        if capturado.stderr:
            sys.stderr.write(capturado.stderr)
        saidas: list[dict] = []
        if capturado.stdout:
            saidas.append({"output_type": "stream", "name": "stdout", "text": capturado.stdout})
        saidas += [{"output_type": "display_data", "data": o.data, "metadata": o.metadata or {}}
                   for o in capturado.outputs]
        revelacao = _Revelacao(tuple(saidas))
        self._revelacoes.append(revelacao)
        if self.conferida:
            revelacao.mostrar()
        display(revelacao)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        dados = self.widget._repr_mimebundle_(**kwargs)
        dados["text/plain"] = TEXTO_CAIXA
        return dados


def caixa(prev: Previsao) -> CaixaDePrevisao:
    """A caixa de prever-e-conferir da :class:`~helpers.corretor.Previsao` ``prev`` (com o exemplo dela)."""
    return CaixaDePrevisao(lambda valor: corrigir_previsao(prev, valor), exemplo=prev.exemplo)


__all__ = ["CaixaDePrevisao", "caixa", "ler_digitado", "PENDENTE", "TEXTO_CAIXA", "TEXTO_REVELACAO"]
