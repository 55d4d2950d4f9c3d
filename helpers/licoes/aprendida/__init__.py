"""Notebook 09_atencao_aprendida: frases de concordância, o modelo pequeno treinado em numpy e a sua análise.

- :mod:`.frases` — o gerador de frases sintéticas em português (sujeito, atrator, lacuna);
- :mod:`.rede` — o modelo (embeddings + atenção de várias cabeças + leitura), o gradiente à mão,
  Adam e o treino;
- :mod:`.analise` — acurácia e o que cada cabeça olha, medido;
- :mod:`.arquivo` — o modelo treinado que vem em ``data/`` (``python -m tools.treinar``).
"""

from .analise import LIMIARES, MEDIDAS, AnaliseCabecas, acuracia, analisar_cabecas, nomear_cabecas
from .arquivo import carregar_modelo, impressao_digital, ler_metadados, salvar_modelo
from .frases import (
    ALVOS,
    CLASSES,
    LACUNA,
    N_MAX,
    VOCABULARIO,
    Frase,
    classe_do_alvo,
    codificar,
    gerar_frases,
    vocabulario,
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
    "vocabulario",
    "RECEITA_AO_VIVO", "RECEITA_COMPLETA", "RECEITA_RAPIDA", "Adam", "BaseSemAtencao", "ModeloConcordancia",
    "Receita", "Treino", "iniciar_modelo", "perda_e_gradientes", "treinar", "treinar_sem_atencao",
    "LIMIARES", "MEDIDAS", "AnaliseCabecas", "acuracia", "analisar_cabecas", "nomear_cabecas",
    "carregar_modelo", "impressao_digital", "ler_metadados", "salvar_modelo",
]
