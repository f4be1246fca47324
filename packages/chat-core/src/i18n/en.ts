/**
 * Every sentence the bots say, in English: the catalogue other languages mirror key for key (`Messages`).
 * Markup of a platform (a Discord mention, Slack mrkdwn) is given by the caller as a parameter.
 */

/** "1 generation", "3 generations". */
function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? "" : "s"}`;
}

export const en = {
  view: {
    queued: "Queued",
    generating: (done: number, total: number) => `Generating… ${done}/${total}`,
    done: "Done",
    failed: (reason: string) => `Failed: ${reason}`,
    failedUnknown: "the generation could not be made",
    buy: (number: number) => `Buy ${number}`,
    upscale: (number: number) => `U${number}`,
    vary: (number: number) => `V${number}`,
    showAll: (total: number) => `Show all ${total}`,
    again: "Again",
    retry: "Retry",
    parameters: {
      advanced: "advanced",
      format: (value: string) => `format ${value}`,
      weather: (value: string) => `weather ${value}`,
      time: (value: string) => `time ${value}`,
      template: (value: string) => `template ${value}`,
      chaos: (value: string) => `chaos ${value}`,
      stylize: (value: string) => `stylize ${value}`,
      camera: (value: string) => `camera: ${value}`,
      avoid: (value: string) => `avoid: ${value}`,
      optimized: "optimized",
      fast: "fast",
    },
    /** A grid's alt text; `isDone` false while it still grows. */
    gridAlt: (imagesDone: number, title: string, isDone: boolean) =>
      `The ${isDone ? "" : "first "}${imagesDone} images of “${title}”, 1 and 2 above, 3 and 4 below`,
    gridTitle: (imagesDone: number, isDone: boolean) => `The ${isDone ? "" : "first "}${imagesDone} images`,
    imageAlt: (number: number, title: string) => `Image ${number} of “${title}”`,
    fullSizeAlt: (number: number) => `Image ${number} in full size`,
  },
  failures: {
    keyRefused:
      "imagehub refused this team's API key: an admin connects a valid one with `/imagehub connect`.",
    noCredits: (details: string) => `Not enough credits: ${details}`,
    notAllowed: (details: string) => `Not allowed: ${details}`,
    notFound: (details: string) => `Not found: ${details}`,
    busy: "imagehub is busy right now; try again in a moment.",
    apiProblem: "imagehub had a problem; try again in a moment.",
    noAnswer: "imagehub did not answer; try again in a moment.",
    ourFault: "Something went wrong on our side; try again.",
    notConnected:
      "This team is not connected to imagehub yet: an admin runs `/imagehub connect` with an API key.",
    notThisTeam: "This generation was not started from this team's chat.",
    noSuchImage: (number: number) => `This generation has no image ${number}.`,
  },
  limits: {
    cooldown: (waitSeconds: number, cooldownSeconds: number) =>
      `You can start another generation in ${waitSeconds} s (one every ${cooldownSeconds} s per person).`,
    dailyQuota: (quota: number) =>
      `You have started your ${count(quota, "generation")} for today (this team's daily quota per person): try again tomorrow (UTC), or ask an admin to raise it.`,
    teamFull: (running: number, max: number) =>
      `${running} generations of this team are already queued or running (at most ${max} at once): wait for one to finish.`,
    purchaseCap: (cap: number) =>
      `This team has bought its ${count(cap, "image")} for today (its daily cap): try again tomorrow (UTC), or ask an admin to raise the cap.`,
    /** `group` is the platform's mention of the buyers' group, if any. */
    mayNotBuy: (group: string | undefined) =>
      `Only the person who asked for these images, the admins${group === undefined ? "" : ` and ${group}`} may buy them in this team.`,
  },
  usage: {
    startedToday: (started: number, quota: number | undefined) =>
      `Today (UTC) you started ${count(started, "generation")} ${quota === undefined ? "(this team sets no daily quota per person)" : `of the ${quota} this team allows each person a day`}.`,
    noCooldown: "No wait between two generations.",
    cooldown: (cooldownSeconds: number, leftSeconds: number) =>
      `One generation every ${cooldownSeconds} s per person: you can start another ${leftSeconds === 0 ? "now" : `in ${leftSeconds} s`}.`,
    teamRunning: (running: number, max: number) =>
      `This team has ${running} of its ${max} generations at once queued or running.`,
  },
  settings: {
    buyers: (group: string | undefined) =>
      `Who may buy: the person who asked for the images, the admins${group === undefined ? "" : ` and ${group}`}.`,
    purchaseCap: (cap: number | undefined) =>
      `Daily purchase cap: ${cap === undefined ? "none" : `${count(cap, "image")} a day (UTC)`}.`,
    generationsPerPerson: (quota: number | undefined) =>
      `Generations per person: ${quota === undefined ? "no daily quota" : `${count(quota, "generation")} a day each (UTC)`}.`,
  },
  notices: {
    ready: (mention: string, title: string) => `${mention} your images of “${title}” are ready`,
    failed: (mention: string, title: string, reason: string) =>
      `${mention} your generation “${title}” failed: ${reason}`,
    gone: (title: string, channel: string, reason: string, status: string) =>
      `The message of your generation “${title}” in ${channel} can no longer be updated (${reason}): it is ${status.toLowerCase()}.`,
    yourImages: "Your images:",
    permissionMissing: (title: string, channel: string, missing: string) =>
      `I can't update the message of your generation “${title}” in ${channel}: I need ${missing}. The message catches up on its own then.`,
  },
  purchases: {
    yours: (number: number, links: string) => `Image ${number} is yours: ${links}`,
    noCredits: (number: number, details: string) => `Not enough credits to buy image ${number}: ${details}`,
    fullSize: "Full size",
    upscaled: "Upscale 2×",
    uhd: "UHD",
    creditsLeft: (left: number | "unlimited") =>
      `Purchase credits left: ${left === "unlimited" ? "unlimited" : left}`,
    linksExpire: "links expire; click again for fresh ones, at no cost",
    upscaledFor: (number: number, mention: string) =>
      `Image ${number} in full size, for ${mention} (U${number}).`,
    eachOnItsOwn: (total: number) => `The ${total} images, each on its own:`,
  },
  answers: {
    pleaseFix: "Please fix:",
    andMore: (left: number) => `…and ${left} more.`,
    yourUsage: "Your use of imagehub here:",
    settingsSaved: "Settings saved.",
    unlimited: "unlimited",
    creditOf: (left: number, total: number) => `${left} of ${total}`,
  },
  flags: {
    syntax: `<description> [--format 16:9] [--weather snowy] [--time sunrise] [--template realistic|smartphone] [--chaos 0-100] [--stylize 0-1000] [--camera "35mm lens"] [--avoid "text, logos"] [--optimize] [--fast]
or: --advanced <a third-party command, e.g. a castle at dawn --ar 16:9 --chaos 20>`,
    advancedEmpty: "--advanced: give the command after it",
    needsValue: (flag: string) => `--${flag}: give it a value`,
    givenTwice: (flag: string) => `--${flag}: given twice`,
    unknown: (flag: string, known: string) =>
      `${flag}: unknown flag; known: ${known} (or start with --advanced for a third-party command)`,
    noPrompt: "prompt: describe the image before the flags",
  },
  slack: {
    help: (flagSyntax: string) => [
      "*/generate* `<description> [flags]`: 4 images, then a Buy button under each. `/generate` alone opens a form.",
      `Flags: ${flagSyntax}`,
      "*/imagehub connect* `<API key>`: (workspace admins) this workspace uses that imagehub account.",
      "*/imagehub status*: the account this workspace uses and its credits.",
      "*/imagehub disconnect*: (workspace admins) forget the key and its webhook.",
      "*/imagehub usage*: your generations today and the limits they count against (seen by you alone).",
      "*/imagehub settings* `[buyers @group|none] [cap <images a day>|none] [quota <generations a day>|none]`: (workspace admins) who may buy besides the requester and the admins, the daily purchase cap, and the daily quota of generations per person.",
    ],
    settingsUsage: (capMax: number, quotaMax: number) =>
      `Usage: \`/imagehub settings buyers @group\` (or \`buyers none\`), \`/imagehub settings cap 20\` (0 to ${capMax}, or \`cap none\`), \`/imagehub settings quota 10\` (0 to ${quotaMax} generations per person a day, or \`quota none\`); several may go in one command.`,
    needsValue: (name: string) => `\`${name}\` needs a value.`,
    buyersTakesGroup: "`buyers` takes a user group (e.g. @designers) or none.",
    takesWholeNumber: (name: string, max: number) =>
      `\`${name}\` takes a whole number from 0 to ${max}, or none.`,
    unknownGroup: (handle: string) => `There is no user group @${handle} in this workspace.`,
    workspaceSettings: "This workspace's settings:",
    buyersGroup: (group: string) => `the members of ${group}`,
    groupMembers: (group: string) => `members of ${group}`,
    connectUsage: "Give the key: `/imagehub connect <API key>` (it is kept encrypted; no one sees it again).",
    nothingCreated: "Nothing was created.",
    generateUsage: (flagSyntax: string) => `Usage: /generate ${flagSyntax}`,
    adminsOnly: (subcommand: string) => `Only workspace admins and owners can \`/imagehub ${subcommand}\`.`,
    connected: (email: string, keyPrefix: string) =>
      `This workspace now uses the imagehub account *${email}* (key \`${keyPrefix}…\`). The key is kept encrypted.`,
    disconnected: "This workspace's imagehub key and its webhook are removed.",
    hadNoKey: "This workspace had no imagehub key of its own: nothing to remove.",
    status: (email: string, keyPrefix: string, isOwnKey: boolean) =>
      `${isOwnKey ? "This workspace uses" : "This workspace uses this deployment's default key, of"} the imagehub account *${email}* (key \`${keyPrefix}…\`).`,
    generationsLeft: (left: number | "unlimited") =>
      `generations left: ${left === "unlimited" ? "unlimited" : left}`,
    purchasesLeft: (left: number | "unlimited") =>
      `purchases left: ${left === "unlimited" ? "unlimited" : left}`,
    secondClickFree: "a second click costs nothing.",
    imageLink: (number: number) => `Image ${number}`,
    imagesRefused:
      "Slack refused the images in this channel (add me with `/invite @imagehub`); Buy still answers their links.",
    gridComment: (total: number, title: string) =>
      `The ${total} images of “${title}”: buy one with its button on the message above.`,
    imagesComment: (total: number, title: string) => `The ${total} images of “${title}”, one by one.`,
    inThread: (total: number) => `The ${total} images are in this message's thread, one by one.`,
    permissions: {
      notInChannel: "to be in that channel: anyone in it adds me with `/invite @imagehub`",
      restrictedAction:
        "leave to post in that channel: a workspace admin allows it in the channel's posting settings",
      missingScope: (scopes: string) =>
        `the permission ${scopes}: a workspace admin adds it to the app (its manifest lists it) and reinstalls it`,
    },
    grantScopes: (scopes: string) =>
      `imagehub's Slack app lacks the permission ${scopes}: a workspace admin adds it (the app's manifest lists it) and reinstalls the app.`,
    somethingWentWrong: "Something went wrong on the bot's side (it is logged); try again in a moment.",
    notInstalled: "imagehub is not installed in this workspace any more: an admin installs it again.",
    cannotPostHere: "I can't post in this channel yet: add me with `/invite @imagehub` first.",
    cannotSeeChannel: "I can't see this channel: add me with `/invite @imagehub` first.",
    channelArchived: "This channel is archived.",
    modal: {
      title: "Generate images",
      submit: "Generate",
      close: "Cancel",
      prompt: "Description",
      promptPlaceholder: "a red fox in the snow",
      format: "Format",
      weather: "Weather",
      time: "Time of day",
      template: "Template",
      chaos: "Chaos",
      chaosHint: (max: number) => `0–${max}: how varied`,
      stylize: "Stylize",
      stylizeHint: (max: number) => `0–${max}: how strongly styled`,
      camera: "Camera",
      cameraPlaceholder: "35mm lens",
      avoid: "Things to avoid",
      avoidPlaceholder: "text, logos",
      options: "Options",
      optimize: "Optimize the description first",
      fast: "Fast (dedicated plans)",
      choose: "Choose",
    },
  },
  /** The descriptions of the Discord commands and their options, as Discord's client shows them. */
  discordCommands: {
    generate: "Generate 4 images from a description",
    prompt: "What the images show",
    format: "Aspect ratio",
    weather: "Weather",
    time: "Time of day",
    template: "Photo style",
    chaos: "How different the 4 images are (0-100)",
    stylize: "How strongly a style is applied (0-1000)",
    camera: "Camera or lens, e.g. 35mm",
    avoid: "Things that must not appear, separated by commas",
    optimize: "Rewrite the description into a fuller one",
    fast: "Fast mode (dedicated plan)",
    generateAdvanced: "Generate 4 images from a third-party (Midjourney-style) command",
    command: "e.g. a castle at dawn --ar 16:9 --chaos 20 --no people",
    imagehub: "Connect this server (or, in direct messages, yourself) to an imagehub account",
    connect: "Use an imagehub API key for this server",
    key: "The API key",
    status: "The connected account and its credits",
    usage: "Your generations today and the limits they count against",
    disconnect: "Forget this server's API key",
    settings: "Who may buy, and the daily caps; without options, the current settings",
    buyers: "A role whose members may buy (besides requester and admins)",
    dailyCap: "Images this server buys per day at most (UTC)",
    dailyGenerations: "Generations each person starts per day at most (UTC)",
    noBuyersRole: "Only the requester and the admins may buy",
    noDailyGenerations: "No daily quota of generations per person",
    noCap: "No daily cap",
  },
  discord: {
    permissionNames: {
      ViewChannel: "View Channel",
      SendMessages: "Send Messages",
      EmbedLinks: "Embed Links",
      AttachFiles: "Attach Files",
    },
    and: "and",
    permissionMissing: (title: string, channel: string, missing: string) =>
      `I can't update the message of your generation “${title}” in ${channel}: I need ${missing} in that channel. A server admin grants it in the channel's settings; the message catches up on its own then.`,
    cannotShowHere: (names: string) =>
      `I can't show a generation in this channel: I need ${names} here (a server admin grants them, or use another channel). Nothing was created.`,
    embedParameters: "Parameters",
    embedStatus: "Status",
    embedImages: "Images",
    serverSettings: "This server's settings:",
    settingsInDirectMessages: "Settings are a server's: in direct messages, your key serves you alone.",
    settingsNeedManageServer: "Changing imagehub's settings needs the Manage Server permission.",
    connectNeedsManageServer: "Connecting imagehub needs the Manage Server permission.",
    connectInDirectMessages:
      "In direct messages, imagehub uses your own account: run `/imagehub connect key:<your API key>` here first (the key is stored encrypted and serves you alone). In a server, its admins connect one for everyone.",
    connected: (email: string, isDirect: boolean) =>
      `Connected to the imagehub account of ${email}: /generate${isDirect ? " in these direct messages, for you alone," : ""} now uses it. The key is stored encrypted.`,
    keyRefused: "imagehub refused that API key: check it and try again.",
    status: (email: string, isOwnKey: boolean, keyPrefix: string) =>
      `Connected to the imagehub account of ${email} (${isOwnKey ? "this server's key" : "the bot's default key"}, ${keyPrefix}…).`,
    credits: "Credits:",
    disconnected: (isDirect: boolean) =>
      `Disconnected: ${isDirect ? "your" : "this server's"} API key and its webhook are removed.`,
    hadNoKey: (isDirect: boolean) => `${isDirect ? "You" : "This server"} had no API key of its own here.`,
    buyersRole: (role: string) => `the role ${role}`,
    roleMembers: (role: string) => `members of ${role}`,
  },
};

/** The catalogue's shape: a language that lacks a sentence, or words one differently, does not compile. */
export type Messages = typeof en;
