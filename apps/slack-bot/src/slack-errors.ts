import { webApi } from "@slack/bolt";

/** Slack's error code of a refused Web API call (`ok: false`), if it was one. */
export function slackErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error && "code" in error && error.code === webApi.ErrorCode.PlatformError))
    return undefined;
  return (error as webApi.WebAPIPlatformError).data.error;
}
