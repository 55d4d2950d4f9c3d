"""Lição "Atenção aprendida" (notebook ``atencao_aprendida``): frases de concordância, o modelo pequeno
treinado em numpy com o gradiente escrito à mão, a análise das cabeças, os painéis e os corretores.

É um pacote porque o modelo é maior que uma lição comum; o notebook usa só este nome
(``from helpers.licoes import aprendida as licao``):

- :mod:`.frases` — o gerador de frases sintéticas em português (sujeito, atrator, lacuna);
- :mod:`.rede` — o modelo (embeddings + atenção de várias cabeças + leitura), o gradiente à mão,
  Adam e o treino;
- :mod:`.analise` — acurácia, o que cada cabeça olha, desligar uma cabeça (zerada ou na média), o teste
  causal do revezamento, as dicas do BertViz medidas;
- :mod:`.arquivo` — o modelo treinado que vem em ``data/`` (``python -m tools.treinar``);
- :mod:`.figuras` e :mod:`.paineis` — as figuras, a vista das cabeças e o treino ao vivo;
- :mod:`.corretores` — os exercícios de código (o gradiente da atenção, um passo de Adam);
- :mod:`.previsoes` — as caixas das previsões (prever, depois conferir).
"""

from .analise import (
    DICAS,
    LIMIARES,
    MEDIDAS,
    AnaliseCabecas,
    DicasBertViz,
    acuracia,
    acuracia_bigramas,
    acuracia_com_media,
    acuracia_por_atrator,
    acuracia_regra_do_artigo,
    acuracia_sem_atualizar,
    acuracia_sem_cada_cabeca,
    analisar_cabecas,
    contrafactuais,
    contrafactual,
    desligar_cabeca,
    efeito_do_remendo,
    erros_de_atracao,
    fracao_que_segue,
    medir_dicas_bertviz,
    medir_semente,
    nomear_cabecas,
    porcento,
    prever_com_remendo,
    remendo_na_lacuna,
    saidas_das_cabecas,
)
from .arquivo import carregar_modelo, impressao_digital, ler_metadados, ler_sementes, salvar_modelo
from .corretores import (
    ADAM,
    FRACAO_QUE_SEGUE,
    GRADIENTE_ATENCAO,
    REMENDO,
    check_gradiente_atencao,
    check_passo_adam,
    check_remendo,
    diferencas_finitas,
)
from .figuras import (
    figura_duas_vistas,
    figura_frases,
    figura_sujeito_atrator,
    figura_vista_cabecas,
    papeis_da_frase,
)
from .frases import (
    ALVOS,
    CLASSES,
    LACUNA,
    N_MAX,
    VOCABULARIO,
    Frase,
    classe_do_alvo,
    codificar,
    conjunto_da_frase,
    frases_de_avaliacao,
    gerar_frases,
    vocabulario,
)
from .paineis import EXEMPLOS, PainelTreino, PainelVistaCabecas, ler_frase, painel_treino, painel_vista_cabecas
from .previsoes import (
    PREVISAO_CAMADA,
    PREVISAO_DESLIGAR,
    PREVISAO_REMENDO,
    prever_camada,
    prever_desligar,
    prever_remendo,
)
from .rede import (
    RECEITA_AO_VIVO,
    RECEITA_COMPLETA,
    RECEITA_RAPIDA,
    Adam,
    BaseSemAtencao,
    ModeloConcordancia,
    Receita,
    Treino,
    iniciar_modelo,
    perda_e_gradientes,
    treinar,
    treinar_sem_atencao,
)

__all__ = [
    "ALVOS", "CLASSES", "LACUNA", "N_MAX", "VOCABULARIO", "Frase", "classe_do_alvo", "codificar", "gerar_frases",
    "vocabulario", "conjunto_da_frase", "frases_de_avaliacao",
    "acuracia_bigramas", "acuracia_por_atrator", "acuracia_regra_do_artigo", "contrafactuais", "contrafactual",
    "efeito_do_remendo", "erros_de_atracao", "fracao_que_segue", "medir_semente", "prever_com_remendo",
    "remendo_na_lacuna", "saidas_das_cabecas", "ler_sementes",
    "FRACAO_QUE_SEGUE", "REMENDO", "PREVISAO_REMENDO", "check_remendo", "prever_remendo",
    "RECEITA_AO_VIVO", "RECEITA_COMPLETA", "RECEITA_RAPIDA", "Adam", "BaseSemAtencao", "ModeloConcordancia",
    "Receita", "Treino", "iniciar_modelo", "perda_e_gradientes", "treinar", "treinar_sem_atencao",
    "DICAS", "LIMIARES", "MEDIDAS", "AnaliseCabecas", "DicasBertViz", "acuracia", "acuracia_com_media",
    "acuracia_sem_atualizar", "acuracia_sem_cada_cabeca",
    "analisar_cabecas", "desligar_cabeca", "medir_dicas_bertviz", "nomear_cabecas", "porcento",
    "carregar_modelo", "impressao_digital", "ler_metadados", "salvar_modelo",
    "figura_duas_vistas", "figura_frases", "figura_sujeito_atrator", "figura_vista_cabecas", "papeis_da_frase",
    "EXEMPLOS", "PainelTreino", "PainelVistaCabecas", "ler_frase", "painel_treino", "painel_vista_cabecas",
    "ADAM", "GRADIENTE_ATENCAO", "PREVISAO_CAMADA", "PREVISAO_DESLIGAR", "check_gradiente_atencao",
    "check_passo_adam", "diferencas_finitas", "prever_camada", "prever_desligar",
]
