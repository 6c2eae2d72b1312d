import { GoBack, select } from './ask.js';

/** After the proposed structure is shown: save it, edit it first, give it another id, or leave (nothing charged). */
export type ReviewChoice = 'accept' | 'edit' | 'rename' | 'cancel';

export async function askReview(apiId: string, file: string): Promise<ReviewChoice> {
  try {
    return await select<ReviewChoice>({
      message: `Save this structure as ${apiId}?`,
      choices: [
        { name: 'Accept and save', value: 'accept', description: `write ${file}` },
        { name: 'Edit before saving', value: 'edit', description: 'add, remove, rename or move fields; saved once, when you save' },
        { name: `Change the id (now ${apiId})`, value: 'rename', description: "the apiId is the endpoint's name and file name" },
        { name: 'Cancel', value: 'cancel', description: 'save nothing, charge nothing' },
      ],
    });
  } catch (error) {
    if (error instanceof GoBack) return 'cancel';
    throw error;
  }
}
