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
