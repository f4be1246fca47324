/** The Display Image URL of an image: what Image.url and Image.urlFull hold. */
export function displayUrl(publicBaseUrl: string, format: "preview" | "full", imageId: string): string {
  return `${publicBaseUrl}/v1/images/${format}/${imageId}.jpg`;
}
