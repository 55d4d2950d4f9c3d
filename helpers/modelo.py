"""O modelo de concordância do notebook 09_atencao_aprendida, importável de um lugar só.

::

    from helpers.modelo import gerar_frases, carregar_modelo

    modelo = carregar_modelo()                      # o modelo treinado de data/
    modelo.prever("o bolo para as meninas ___")     # → "está pronto"
    modelo.atencao("o bolo para as meninas ___")    # (n_camadas, n_cabecas, n, n), linhas somam 1

O código mora em :mod:`helpers.licoes.aprendida`; aqui só se reexportam os nomes públicos.
"""

from .licoes.aprendida import (
    ALVOS,
    CLASSES,
    LACUNA,
    LIMIARES,
    MEDIDAS,
    N_MAX,
    RECEITA_AO_VIVO,
    RECEITA_COMPLETA,
    RECEITA_RAPIDA,
    VOCABULARIO,
    Adam,
    AnaliseCabecas,
    BaseSemAtencao,
    Frase,
    ModeloConcordancia,
    Receita,
    Treino,
    acuracia,
    analisar_cabecas,
    carregar_modelo,
    classe_do_alvo,
    codificar,
    gerar_frases,
    impressao_digital,
    iniciar_modelo,
    ler_metadados,
    nomear_cabecas,
    perda_e_gradientes,
    salvar_modelo,
    treinar,
    treinar_sem_atencao,
    vocabulario,
)

__all__ = [
    # as frases
    "gerar_frases", "Frase", "VOCABULARIO", "vocabulario", "codificar", "ALVOS", "CLASSES", "LACUNA", "N_MAX",
    "classe_do_alvo",
    # o modelo e o treino
    "carregar_modelo", "ler_metadados", "ModeloConcordancia", "BaseSemAtencao", "Receita", "RECEITA_COMPLETA",
    "RECEITA_AO_VIVO", "RECEITA_RAPIDA", "iniciar_modelo", "treinar", "treinar_sem_atencao", "Treino",
    "perda_e_gradientes", "Adam", "salvar_modelo", "impressao_digital",
    # a análise
    "acuracia", "analisar_cabecas", "nomear_cabecas", "AnaliseCabecas", "MEDIDAS", "LIMIARES",
]
