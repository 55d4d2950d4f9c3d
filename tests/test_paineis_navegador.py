"""O que o navegador faz com os painéis e que dá para conferir sem navegador.

O slider do ipywidgets, no navegador, arredonda o valor para a grade ``min + k·step`` assim que é
desenhado e devolve o valor arredondado ao kernel. Um valor inicial fora da grade muda sozinho:
``0.707`` com passo ``0.01`` vira ``0.71`` — e o painel deixa de mostrar os números do exemplo do
texto (visto nos testes de navegador: pesos 0.457/0.319 em vez de 0.455/0.320).
"""

import ipywidgets as W
import pytest

from tools.notebooks import paineis

PAINEIS = paineis()


@pytest.mark.parametrize("nome", PAINEIS)
def test_valores_iniciais_dos_sliders_caem_no_passo(nome):
    painel = PAINEIS[nome]()
    fora = []
    for controle_nome, c in painel.controles.items():
        if isinstance(c, (W.FloatSlider, W.IntSlider)):
            passos = (c.value - c.min) / c.step
            if abs(passos - round(passos)) > 1e-6:
                arredondado = c.min + round(passos) * c.step
                fora.append(f"{controle_nome} = {c.value} (min {c.min}, passo {c.step}): "
                            f"o navegador troca por {arredondado:g}")
    assert not fora, f"{nome}: valores fora da grade do slider:\n" + "\n".join(fora)
