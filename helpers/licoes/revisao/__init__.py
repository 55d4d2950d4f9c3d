"""Lição "Revisão" (notebook ``revisao``): o diagrama do mecanismo inteiro, o quiz e o corretor do mecanismo.

As contas vêm do núcleo (:mod:`helpers.attention` e companhia); aqui mora só o que este notebook
mostra e corrige. É um pacote, na ordem do notebook; o notebook usa só este nome
(``from helpers.licoes import revisao as licao``):

- :mod:`.paineis` — o mecanismo inteiro ao vivo, por cabeça (§2);
- :mod:`.previsoes` — a caixa de previsão do peso da key esticada (§2; a conta, no equívoco 1 da §3);
- :mod:`.figuras` — a figura do mecanismo inteiro (o resumo);
- :mod:`.quiz` — o quiz de revisão: a correção de cada resposta, o corretor digitado, o quiz clicável e
  as perguntas em texto (Exercício 1, no núcleo as :data:`PERGUNTAS_DO_NUCLEO`; o resto num bloco opcional);
- :mod:`.corretores` — o mecanismo inteiro só com numpy (Exercício 2, opcional).
"""

# os símbolos dos vereditos, que os testes leem como ``licao.OK`` (vêm de helpers.corretor)
from ...corretor import ERRO, OK, PENDENTE
from .corretores import MECANISMO, SO_NUMPY, check_mecanismo
from .figuras import figura_mecanismo
from .paineis import (
    MAPA_DIVERGENTE,
    FiguraMecanismoVivo,
    PainelMecanismo,
    exemplo_da_revisao,
    mecanismo_ao_vivo,
    painel_mecanismo,
)
from .previsoes import PREVISAO_K3, prever_k3_esticada
from .quiz import (
    PERGUNTAS_DO_NUCLEO,
    PERGUNTAS_OPCIONAIS,
    QUIZ,
    QuizClicavel,
    avaliar_resposta,
    check_quiz,
    corrigir_resposta,
    quiz_clicavel,
    quiz_em_html,
    selecionar_perguntas,
    texto_do_quiz,
)

__all__ = [
    "MAPA_DIVERGENTE", "FiguraMecanismoVivo", "PainelMecanismo", "exemplo_da_revisao", "mecanismo_ao_vivo",
    "painel_mecanismo",
    "PREVISAO_K3", "prever_k3_esticada",
    "figura_mecanismo",
    "PERGUNTAS_DO_NUCLEO", "PERGUNTAS_OPCIONAIS", "QUIZ", "QuizClicavel", "avaliar_resposta", "check_quiz",
    "corrigir_resposta",
    "quiz_clicavel", "quiz_em_html", "selecionar_perguntas", "texto_do_quiz",
    "MECANISMO", "SO_NUMPY", "check_mecanismo",
    "ERRO", "OK", "PENDENTE",
]
