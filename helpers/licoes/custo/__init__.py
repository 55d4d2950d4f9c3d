"""Lição "O custo quadrático" (notebook ``custo_quadratico``): o painel do custo de cada atenção, a caixa da previsão do estado da atenção linear causal e os corretores da softmax online, da atenção por blocos e da memória dos pesos.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige. É um pacote para que nenhum módulo fique grande demais; o notebook usa só este nome
(``from helpers.licoes import custo as licao``):

- :mod:`.medidas` — cronometrar num núcleo só, o pico de memória de uma chamada, o tempo de uma camada
  recorrente, as marcas em ms e os bytes com vírgula decimal;
- :mod:`.figuras` e :mod:`.paineis` — o tempo medido contra a reta de inclinação 2, os pesos da softmax e
  da linear lado a lado, e a figura e o painel do custo de cada atenção;
- :mod:`.corretores` — juntar dois estados da softmax online e a memória dos pesos;
- :mod:`.blocos` — a atenção por blocos: o estudante escreve o passo de um bloco, o corretor faz o laço;
- :mod:`.previsoes` — a caixa da previsão (prever, depois conferir): o estado da atenção linear causal.
"""

from .blocos import POR_BLOCOS, check_atencao_por_blocos
from .corretores import COMBINAR_ESTADOS, MEMORIA_PESOS, EstadoOnline, check_combinar_estados, check_memoria_pesos
from .figuras import ESTILO_METODOS, NOMES_METODOS, FiguraCusto, desenhar_pesos, desenhar_tempos
from .medidas import bytes_na_prosa, cronometrar, marcas_em_ms, pico_de_memoria, tempo_rnn, um_nucleo
from .paineis import painel_custo
from .previsoes import PREVISAO_ESTADO_LINEAR, Contagem, prever_estado_linear

__all__ = [
    "bytes_na_prosa", "cronometrar", "marcas_em_ms", "pico_de_memoria", "tempo_rnn", "um_nucleo",
    "ESTILO_METODOS", "NOMES_METODOS", "FiguraCusto", "desenhar_pesos", "desenhar_tempos", "painel_custo",
    "COMBINAR_ESTADOS", "MEMORIA_PESOS", "EstadoOnline", "check_combinar_estados", "check_memoria_pesos",
    "POR_BLOCOS", "check_atencao_por_blocos",
    "Contagem", "PREVISAO_ESTADO_LINEAR", "prever_estado_linear",
]
