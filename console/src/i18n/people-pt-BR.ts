// The texts of the clinic's people in the console (sign-in by account, Pessoas, Minha conta, roles),
// in Brazilian Portuguese; kept beside ./pt-BR.ts and exported as `tp` from ./people.ts.
import type { Papel } from '../../server/people-api-types.js';

/** Names of the roles as the clinic says them. */
const PAPEL: Record<Papel, string> = { admin: 'Administrador', equipe: 'Equipe', hunter: 'Hunter' };

/** The accounts texts in Brazilian Portuguese; its shape is `PeopleMessages`. */
export const peoplePtBR = {
  papel: PAPEL,
  papelHint: {
    admin: 'vê e faz tudo, em todas as clínicas',
    equipe: 'atende os leads das suas clínicas',
    hunter: 'vê os leads transferidos ou com agendamento das suas clínicas',
  } satisfies Record<Papel, string>,
  titles: {
    people: 'Pessoas · LeadFlow',
    account: 'Minha conta · LeadFlow',
  },
  nav: {
    people: 'Pessoas',
    account: 'Minha conta',
    signedInAs: (nome: string) => nome,
    tokenUser: 'Token de administração',
  },
  signIn: {
    intro: 'Entre com o seu email e a sua senha.',
    email: 'Email',
    password: 'Senha',
    wrong: 'Email ou senha incorretos.',
    locked: 'Muitas tentativas erradas. Espere 15 minutos e tente de novo.',
    empty: 'Informe o email e a senha.',
    useToken: 'Usar o token de administração',
    usePassword: 'Usar email e senha',
    tokenIntro: 'Use o token de administração deste servidor (LEADFLOW_ADMIN_TOKEN).',
  },
  people: {
    heading: 'Pessoas',
    intro: 'Quem usa o console e o que cada um pode ver.',
    add: 'Adicionar pessoa',
    listLabel: 'Contas do console',
    empty: 'Nenhuma conta ainda. Adicione a primeira pessoa.',
    columns: { nome: 'Nome', email: 'Email', papel: 'Papel', clinicas: 'Clínicas', estado: 'Situação', acoes: 'Ações' },
    allClinics: 'Todas',
    active: 'Ativa',
    disabled: (when: string) => `Desativada em ${when}`,
    disable: 'Desativar',
    resetPassword: 'Nova senha',
    confirmDisable: (nome: string) => `Desativar a conta de ${nome}?`,
    confirmDisableText: 'A pessoa sai do console na hora e não consegue mais entrar. O histórico dela continua na auditoria.',
    confirmReset: (nome: string) => `Gerar uma nova senha para ${nome}?`,
    confirmResetText: 'A senha atual deixa de funcionar. A nova aparece uma única vez para você entregar à pessoa.',
    disabledNotice: (nome: string) => `Conta de ${nome} desativada.`,
    form: {
      heading: 'Nova pessoa',
      nome: 'Nome',
      email: 'Email',
      papel: 'Papel',
      clinicas: 'Clínicas',
      clinicasHint: 'Obrigatório para Equipe e Hunter.',
      submit: 'Criar conta',
      submitting: 'Criando…',
      cancel: 'Cancelar',
    },
    password: {
      heading: (nome: string) => `Senha de ${nome}`,
      text: 'Entregue esta senha à pessoa. Ela aparece só agora: depois não dá para ver de novo. A pessoa pode trocá-la em Minha conta.',
      copy: 'Copiar senha',
      copied: 'Copiada!',
      done: 'Pronto, já anotei',
    },
  },
  account: {
    heading: 'Minha conta',
    tokenText: 'Você entrou com o token de administração. Ele não tem senha para trocar.',
    nome: 'Nome',
    email: 'Email',
    papel: 'Papel',
    clinicas: 'Clínicas',
    change: 'Trocar senha',
    current: 'Senha atual',
    next: 'Nova senha (pelo menos 10 caracteres)',
    repeat: 'Repita a nova senha',
    submit: 'Trocar senha',
    submitting: 'Trocando…',
    mismatch: 'As duas senhas novas não são iguais.',
    tooShort: 'A nova senha precisa ter pelo menos 10 caracteres.',
    wrongCurrent: 'A senha atual está incorreta.',
    changed: 'Senha trocada.',
  },
};

/** The shape every language of the accounts texts has. */
export type PeopleMessages = typeof peoplePtBR;
