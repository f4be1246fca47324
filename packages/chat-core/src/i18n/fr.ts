import type { Messages } from "./en.js";

/** "1 génération", "3 générations". */
function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount > 1 ? "s" : ""}`;
}

/** Every sentence the bots say, in French (the person addressed as « vous »). */
export const fr: Messages = {
  view: {
    queued: "En file d’attente",
    generating: (done, total) => `Génération en cours… ${done}/${total}`,
    done: "Terminé",
    failed: (reason) => `Échec : ${reason}`,
    failedUnknown: "la génération n’a pas pu être réalisée",
    buy: (number) => `Acheter ${number}`,
    upscale: (number) => `U${number}`,
    vary: (number) => `V${number}`,
    showAll: (total) => `Voir les ${total}`,
    again: "Relancer",
    retry: "Réessayer",
    parameters: {
      advanced: "avancé",
      format: (value) => `format ${value}`,
      weather: (value) => `météo ${value}`,
      time: (value) => `heure ${value}`,
      template: (value) => `modèle ${value}`,
      chaos: (value) => `chaos ${value}`,
      stylize: (value) => `stylisation ${value}`,
      camera: (value) => `caméra : ${value}`,
      avoid: (value) => `à éviter : ${value}`,
      optimized: "optimisé",
      fast: "rapide",
    },
    gridAlt: (imagesDone, title, isDone) =>
      `${isDone ? "Les" : "Les premières"} ${imagesDone} images de « ${title} », 1 et 2 en haut, 3 et 4 en bas`,
    gridTitle: (imagesDone, isDone) => `${isDone ? "Les" : "Les premières"} ${imagesDone} images`,
    imageAlt: (number, title) => `Image ${number} de « ${title} »`,
    fullSizeAlt: (number) => `Image ${number} en taille réelle`,
  },
  failures: {
    keyRefused:
      "imagehub a refusé la clé d’API de cette équipe : un administrateur en connecte une valide avec `/imagehub connect`.",
    noCredits: (details) => `Crédits insuffisants : ${details}`,
    notAllowed: (details) => `Non autorisé : ${details}`,
    notFound: (details) => `Introuvable : ${details}`,
    busy: "imagehub est très sollicité en ce moment ; réessayez dans un instant.",
    apiProblem: "imagehub a rencontré un problème ; réessayez dans un instant.",
    noAnswer: "imagehub n’a pas répondu ; réessayez dans un instant.",
    ourFault: "Une erreur s’est produite de notre côté ; réessayez.",
    notConnected:
      "Cette équipe n’est pas encore connectée à imagehub : un administrateur lance `/imagehub connect` avec une clé d’API.",
    notThisTeam: "Cette génération n’a pas été lancée depuis le chat de cette équipe.",
    noSuchImage: (number) => `Cette génération n’a pas d’image ${number}.`,
  },
  limits: {
    cooldown: (waitSeconds, cooldownSeconds) =>
      `Vous pourrez lancer une autre génération dans ${waitSeconds} s (une toutes les ${cooldownSeconds} s par personne).`,
    dailyQuota: (quota) =>
      `Vous avez lancé vos ${count(quota, "génération")} du jour (le quota quotidien par personne de cette équipe) : réessayez demain (UTC), ou demandez à un administrateur de le relever.`,
    teamFull: (running, max) =>
      `${running} générations de cette équipe sont déjà en attente ou en cours (${max} au plus à la fois) : attendez que l’une d’elles se termine.`,
    purchaseCap: (cap) =>
      `Cette équipe a acheté ses ${count(cap, "image")} du jour (son plafond quotidien) : réessayez demain (UTC), ou demandez à un administrateur de relever le plafond.`,
    mayNotBuy: (group) =>
      `Dans cette équipe, seuls la personne qui a demandé ces images, les administrateurs${group === undefined ? "" : ` et ${group}`} peuvent les acheter.`,
  },
  usage: {
    startedToday: (started, quota) =>
      `Aujourd’hui (UTC), vous avez lancé ${count(started, "génération")} ${quota === undefined ? "(cette équipe ne fixe pas de quota quotidien par personne)" : `sur les ${quota} que cette équipe accorde à chacun par jour`}.`,
    noCooldown: "Aucune attente entre deux générations.",
    cooldown: (cooldownSeconds, leftSeconds) =>
      `Une génération toutes les ${cooldownSeconds} s par personne : vous pouvez en lancer une autre ${leftSeconds === 0 ? "dès maintenant" : `dans ${leftSeconds} s`}.`,
    teamRunning: (running, max) =>
      `Cette équipe a ${running} générations en attente ou en cours, sur ${max} à la fois au plus.`,
  },
  settings: {
    buyers: (group) =>
      `Qui peut acheter : la personne qui a demandé les images, les administrateurs${group === undefined ? "" : ` et ${group}`}.`,
    purchaseCap: (cap) =>
      `Plafond d’achats quotidien : ${cap === undefined ? "aucun" : `${count(cap, "image")} par jour (UTC)`}.`,
    generationsPerPerson: (quota) =>
      `Générations par personne : ${quota === undefined ? "pas de quota quotidien" : `${count(quota, "génération")} par jour chacun (UTC)`}.`,
  },
  notices: {
    ready: (mention, title) => `${mention} vos images de « ${title} » sont prêtes`,
    failed: (mention, title, reason) => `${mention} votre génération « ${title} » a échoué : ${reason}`,
    gone: (title, channel, reason, status) =>
      `Le message de votre génération « ${title} » dans ${channel} ne peut plus être mis à jour (${reason}) : état ${status.toLowerCase()}.`,
    yourImages: "Vos images :",
    permissionMissing: (title, channel, missing) =>
      `Je ne peux pas mettre à jour le message de votre génération « ${title} » dans ${channel} : il me faut ${missing}. Le message se mettra à jour de lui-même ensuite.`,
  },
  purchases: {
    yours: (number, links) => `L’image ${number} est à vous : ${links}`,
    noCredits: (number, details) => `Crédits insuffisants pour acheter l’image ${number} : ${details}`,
    fullSize: "Taille réelle",
    upscaled: "Agrandie 2×",
    uhd: "UHD",
    creditsLeft: (left) => `Crédits d’achat restants : ${left === "unlimited" ? "illimités" : left}`,
    linksExpire: "les liens expirent ; cliquez à nouveau pour en obtenir de nouveaux, sans frais",
    upscaledFor: (number, mention) => `Image ${number} en taille réelle, pour ${mention} (U${number}).`,
    eachOnItsOwn: (total) => `Les ${total} images, une par une :`,
  },
  answers: {
    pleaseFix: "À corriger :",
    andMore: (left) => `…et ${left} de plus.`,
    yourUsage: "Votre utilisation d’imagehub ici :",
    settingsSaved: "Réglages enregistrés.",
    unlimited: "illimités",
    creditOf: (left, total) => `${left} sur ${total}`,
  },
  flags: {
    syntax: `<description> [--format 16:9] [--weather snowy] [--time sunrise] [--template realistic|smartphone] [--chaos 0-100] [--stylize 0-1000] [--camera "35mm lens"] [--avoid "text, logos"] [--optimize] [--fast]
ou : --advanced <une commande tierce, p. ex. a castle at dawn --ar 16:9 --chaos 20>`,
    advancedEmpty: "--advanced : indiquez la commande après",
    needsValue: (flag) => `--${flag} : indiquez une valeur`,
    givenTwice: (flag) => `--${flag} : donné deux fois`,
    unknown: (flag, known) =>
      `${flag} : option inconnue ; options connues : ${known} (ou commencez par --advanced pour une commande tierce)`,
    noPrompt: "prompt : décrivez l’image avant les options",
  },
  slack: {
    help: (flagSyntax) => [
      "*/generate* `<description> [options]` : 4 images, puis un bouton Acheter sous chacune. `/generate` seul ouvre un formulaire.",
      `Options : ${flagSyntax}`,
      "*/imagehub connect* `<clé d’API>` : (administrateurs de l’espace de travail) cet espace de travail utilise ce compte imagehub.",
      "*/imagehub status* : le compte qu’utilise cet espace de travail et ses crédits.",
      "*/imagehub disconnect* : (administrateurs de l’espace de travail) oublie la clé et son webhook.",
      "*/imagehub usage* : vos générations du jour et les limites qu’elles consomment (visible par vous seul).",
      "*/imagehub settings* `[buyers @groupe|none] [cap <images par jour>|none] [quota <générations par jour>|none]` : (administrateurs de l’espace de travail) qui peut acheter en plus du demandeur et des administrateurs, le plafond d’achats quotidien et le quota quotidien de générations par personne.",
    ],
    settingsUsage: (capMax, quotaMax) =>
      `Utilisation : \`/imagehub settings buyers @groupe\` (ou \`buyers none\`), \`/imagehub settings cap 20\` (de 0 à ${capMax}, ou \`cap none\`), \`/imagehub settings quota 10\` (de 0 à ${quotaMax} générations par personne et par jour, ou \`quota none\`) ; plusieurs peuvent figurer dans une même commande.`,
    needsValue: (name) => `\`${name}\` demande une valeur.`,
    buyersTakesGroup: "`buyers` prend un groupe d’utilisateurs (p. ex. @designers) ou none.",
    takesWholeNumber: (name, max) => `\`${name}\` prend un nombre entier de 0 à ${max}, ou none.`,
    unknownGroup: (handle) => `Il n’y a pas de groupe d’utilisateurs @${handle} dans cet espace de travail.`,
    workspaceSettings: "Réglages de cet espace de travail :",
    buyersGroup: (group) => `les membres de ${group}`,
    groupMembers: (group) => `les membres de ${group}`,
    connectUsage:
      "Indiquez la clé : `/imagehub connect <clé d’API>` (elle est conservée chiffrée ; personne ne la reverra).",
    nothingCreated: "Rien n’a été créé.",
    generateUsage: (flagSyntax) => `Utilisation : /generate ${flagSyntax}`,
    adminsOnly: (subcommand) =>
      `Seuls les administrateurs et propriétaires de l’espace de travail peuvent lancer \`/imagehub ${subcommand}\`.`,
    connected: (email, keyPrefix) =>
      `Cet espace de travail utilise désormais le compte imagehub *${email}* (clé \`${keyPrefix}…\`). La clé est conservée chiffrée.`,
    disconnected: "La clé imagehub de cet espace de travail et son webhook sont supprimés.",
    hadNoKey: "Cet espace de travail n’avait pas de clé imagehub à lui : rien à supprimer.",
    status: (email, keyPrefix, isOwnKey) =>
      `${isOwnKey ? "Cet espace de travail utilise" : "Cet espace de travail utilise la clé par défaut de ce déploiement, celle du"} compte imagehub *${email}* (clé \`${keyPrefix}…\`).`,
    generationsLeft: (left) => `générations restantes : ${left === "unlimited" ? "illimitées" : left}`,
    purchasesLeft: (left) => `achats restants : ${left === "unlimited" ? "illimités" : left}`,
    secondClickFree: "un second clic ne coûte rien.",
    imageLink: (number) => `Image ${number}`,
    imagesRefused:
      "Slack a refusé les images dans ce canal (ajoutez-moi avec `/invite @imagehub`) ; Acheter donne toujours leurs liens.",
    gridComment: (total, title) =>
      `Les ${total} images de « ${title} » : achetez-en une avec son bouton sur le message ci-dessus.`,
    imagesComment: (total, title) => `Les ${total} images de « ${title} », une par une.`,
    inThread: (total) => `Les ${total} images sont dans le fil de ce message, une par une.`,
    permissions: {
      notInChannel: "d’être dans ce canal : n’importe quel membre m’y ajoute avec `/invite @imagehub`",
      restrictedAction:
        "l’autorisation de publier dans ce canal : un administrateur de l’espace de travail l’accorde dans les réglages de publication du canal",
      missingScope: (scopes) =>
        `la permission ${scopes} : un administrateur de l’espace de travail l’ajoute à l’application (son manifeste la mentionne) et la réinstalle`,
    },
    grantScopes: (scopes) =>
      `L’application Slack d’imagehub n’a pas la permission ${scopes} : un administrateur de l’espace de travail l’ajoute (le manifeste de l’application la mentionne) et réinstalle l’application.`,
    somethingWentWrong:
      "Une erreur s’est produite du côté du bot (elle est journalisée) ; réessayez dans un instant.",
    notInstalled:
      "imagehub n’est plus installé dans cet espace de travail : un administrateur l’installe à nouveau.",
    cannotPostHere:
      "Je ne peux pas encore publier dans ce canal : ajoutez-moi d’abord avec `/invite @imagehub`.",
    cannotSeeChannel: "Je ne vois pas ce canal : ajoutez-moi d’abord avec `/invite @imagehub`.",
    channelArchived: "Ce canal est archivé.",
    modal: {
      title: "Générer des images",
      submit: "Générer",
      close: "Annuler",
      prompt: "Description",
      promptPlaceholder: "un renard roux dans la neige",
      format: "Format",
      weather: "Météo",
      time: "Moment de la journée",
      template: "Modèle",
      chaos: "Chaos",
      chaosHint: (max) => `0–${max} : degré de variété`,
      stylize: "Stylisation",
      stylizeHint: (max) => `0–${max} : intensité du style`,
      camera: "Caméra",
      cameraPlaceholder: "objectif 35 mm",
      avoid: "À éviter",
      avoidPlaceholder: "texte, logos",
      options: "Options",
      optimize: "Optimiser d’abord la description",
      fast: "Rapide (offres dédiées)",
      choose: "Choisir",
    },
  },
  discordCommands: {
    generate: "Générer 4 images à partir d’une description",
    prompt: "Ce que montrent les images",
    format: "Format d’image",
    weather: "Météo",
    time: "Moment de la journée",
    template: "Style de photo",
    chaos: "À quel point les 4 images diffèrent (0-100)",
    stylize: "Intensité du style appliqué (0-1000)",
    camera: "Appareil ou objectif, p. ex. 35 mm",
    avoid: "Ce qui ne doit pas apparaître, séparé par des virgules",
    optimize: "Réécrire la description en une version plus complète",
    fast: "Mode rapide (offre dédiée)",
    generateAdvanced: "Générer 4 images à partir d’une commande tierce (façon Midjourney)",
    command: "p. ex. a castle at dawn --ar 16:9 --chaos 20 --no people",
    imagehub: "Connecter ce serveur (ou vous-même, en messages privés) à un compte imagehub",
    connect: "Utiliser une clé d’API imagehub pour ce serveur",
    key: "La clé d’API",
    status: "Le compte connecté et ses crédits",
    usage: "Vos générations du jour et les limites qu’elles consomment",
    disconnect: "Oublier la clé d’API de ce serveur",
    settings: "Qui peut acheter, et les plafonds quotidiens ; sans option, les réglages actuels",
    buyers: "Un rôle dont les membres peuvent acheter (en plus du demandeur et des administrateurs)",
    dailyCap: "Images que ce serveur achète au plus par jour (UTC)",
    dailyGenerations: "Générations que chaque personne lance au plus par jour (UTC)",
    noBuyersRole: "Seuls le demandeur et les administrateurs peuvent acheter",
    noDailyGenerations: "Pas de quota quotidien de générations par personne",
    noCap: "Pas de plafond quotidien",
  },
  discord: {
    // As Discord's French client names them in a channel's settings.
    permissionNames: {
      ViewChannel: "Voir le salon",
      SendMessages: "Envoyer des messages",
      EmbedLinks: "Intégrer des liens",
      AttachFiles: "Joindre des fichiers",
    },
    and: "et",
    permissionMissing: (title, channel, missing) =>
      `Je ne peux pas mettre à jour le message de votre génération « ${title} » dans ${channel} : il me faut la permission ${missing} dans ce salon. Un administrateur du serveur l’accorde dans les paramètres du salon ; le message se mettra à jour de lui-même ensuite.`,
    cannotShowHere: (names) =>
      `Je ne peux pas afficher de génération dans ce salon : il me faut ${names} ici (un administrateur du serveur les accorde, ou utilisez un autre salon). Rien n’a été créé.`,
    embedParameters: "Paramètres",
    embedStatus: "État",
    embedImages: "Images",
    serverSettings: "Réglages de ce serveur :",
    settingsInDirectMessages:
      "Les réglages sont ceux d’un serveur : en messages privés, votre clé ne sert qu’à vous.",
    settingsNeedManageServer: "Modifier les réglages d’imagehub nécessite la permission Gérer le serveur.",
    connectNeedsManageServer: "Connecter imagehub nécessite la permission Gérer le serveur.",
    connectInDirectMessages:
      "En messages privés, imagehub utilise votre propre compte : lancez d’abord `/imagehub connect key:<votre clé d’API>` ici (la clé est stockée chiffrée et ne sert qu’à vous). Sur un serveur, ses administrateurs en connectent une pour tout le monde.",
    connected: (email, isDirect) =>
      `Connecté au compte imagehub de ${email} : /generate${isDirect ? " dans ces messages privés, pour vous seul," : ""} l’utilise désormais. La clé est stockée chiffrée.`,
    keyRefused: "imagehub a refusé cette clé d’API : vérifiez-la et réessayez.",
    status: (email, isOwnKey, keyPrefix) =>
      `Connecté au compte imagehub de ${email} (${isOwnKey ? "la clé de ce serveur" : "la clé par défaut du bot"}, ${keyPrefix}…).`,
    credits: "Crédits :",
    disconnected: (isDirect) =>
      `Déconnecté : ${isDirect ? "votre clé d’API" : "la clé d’API de ce serveur"} et son webhook sont supprimés.`,
    hadNoKey: (isDirect) =>
      isDirect
        ? "Vous n’aviez pas de clé d’API à vous ici."
        : "Ce serveur n’avait pas de clé d’API à lui ici.",
    buyersRole: (role) => `le rôle ${role}`,
    roleMembers: (role) => `les membres de ${role}`,
  },
};
