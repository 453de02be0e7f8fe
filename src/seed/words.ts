/**
 * Word lists the seeder builds names and text from. Every entry is already a valid tag name
 * (lowercase, no spaces, no commas, no leading '-'), so tags can be made by joining with `_`.
 */

export const CREATURES = [
  'cat', 'dog', 'fox', 'owl', 'wolf', 'bear', 'deer', 'rabbit', 'otter', 'raccoon', 'panda', 'tiger', 'lion',
  'horse', 'crow', 'raven', 'sparrow', 'swan', 'heron', 'koi', 'whale', 'dolphin', 'octopus', 'jellyfish',
  'butterfly', 'moth', 'beetle', 'frog', 'turtle', 'lizard', 'snake', 'dragon', 'phoenix', 'unicorn', 'griffin',
  'mermaid', 'kitsune', 'slime', 'golem', 'robot', 'android', 'cyborg', 'alien', 'ghost', 'vampire', 'witch',
  'wizard', 'knight', 'samurai', 'ninja', 'pirate', 'astronaut', 'dancer', 'musician', 'chef', 'sailor',
] as const;

export const THINGS = [
  'castle', 'lighthouse', 'mountain', 'forest', 'ocean', 'river', 'city', 'street', 'car', 'train', 'ship',
  'flower', 'tree', 'spaceship', 'planet', 'moon', 'sun', 'cloud', 'bridge', 'tower', 'temple', 'garden',
  'cafe', 'book', 'guitar', 'piano', 'coffee', 'cake', 'sushi', 'ramen', 'skull', 'mask', 'sword', 'shield',
  'crown', 'crystal', 'waterfall', 'volcano', 'desert', 'island', 'beach', 'lake', 'meadow', 'canyon',
  'glacier', 'aurora', 'galaxy', 'nebula', 'comet', 'rainbow', 'lantern', 'umbrella', 'bicycle', 'motorcycle',
  'airship', 'submarine', 'mech', 'cathedral', 'village', 'harbor', 'market', 'library', 'rooftop', 'alley',
  'subway', 'windmill', 'farm', 'snowman', 'pumpkin', 'cherry_blossom', 'sunflower', 'rose', 'tulip',
  'mushroom', 'cactus', 'fern', 'teapot', 'clock', 'key', 'door', 'window', 'staircase', 'ruins', 'shrine',
] as const;

export const SUBJECTS: readonly string[] = [...CREATURES, ...THINGS];

export const COLOURS = [
  'red', 'blue', 'green', 'yellow', 'orange', 'purple', 'pink', 'black', 'white', 'grey', 'brown', 'teal',
  'cyan', 'magenta', 'gold', 'silver', 'crimson', 'navy', 'olive', 'amber', 'ivory', 'lavender', 'turquoise',
  'scarlet', 'indigo', 'maroon', 'pastel', 'neon', 'sepia', 'emerald',
] as const;

export const STYLES = [
  'pixel_art', 'watercolor', 'oil_painting', 'pencil_sketch', 'ink', 'line_art', 'cel_shading', 'lowpoly',
  'voxel_art', 'vector_art', 'photo', 'photorealistic', '3d_render', 'concept_art', 'comic', 'manga', 'anime',
  'chibi', 'impressionism', 'surrealism', 'minimalism', 'art_nouveau', 'art_deco', 'ukiyo-e', 'vaporwave',
  'synthwave', 'cyberpunk', 'steampunk', 'fantasy', 'sci-fi', 'gothic', 'retro', 'vintage', 'isometric',
  'collage', 'graffiti', 'charcoal', 'digital_painting', 'matte_painting', 'monochrome',
] as const;

export const SETTINGS = [
  'landscape', 'cityscape', 'portrait', 'still_life', 'night', 'sunset', 'sunrise', 'dusk', 'dawn', 'winter',
  'summer', 'autumn', 'spring', 'rain', 'snow', 'fog', 'underwater', 'outer_space', 'indoors', 'outdoors',
  'city_lights', 'moonlight', 'golden_hour', 'blue_hour', 'blue_sky', 'starry_sky', 'cloudy_sky', 'stormy_sky',
  'scenery', 'wallpaper', 'close-up', 'wide_shot', 'from_above', 'from_below', 'depth_of_field', 'bokeh',
  'reflection', 'silhouette', 'backlighting', 'lens_flare', 'highres', 'original', 'solo', 'no_humans',
] as const;

export const ADJECTIVES = [
  'quiet', 'misty', 'ancient', 'tiny', 'giant', 'sleepy', 'happy', 'lonely', 'broken', 'glowing', 'floating',
  'frozen', 'burning', 'hidden', 'lost', 'wild', 'gentle', 'rusty', 'shiny', 'cozy', 'dark', 'bright', 'old',
  'little', 'secret', 'golden', 'silent', 'wandering', 'dreaming', 'curious', 'brave', 'clever', 'fluffy',
  'stormy', 'sunny', 'windy', 'electric', 'cosmic', 'urban', 'royal', 'humble', 'faded', 'vivid', 'soft',
  'mossy', 'dusty', 'velvet', 'crystal', 'paper', 'mechanical',
] as const;

export const TIMES = ['at dusk', 'at dawn', 'at night', 'in the rain', 'in winter', 'in spring', 'under the stars',
  'after the storm', 'in the fog', 'at golden hour', 'by the sea', 'in the city', 'in the woods'] as const;

export const COMMENT_LINES = [
  'Love the colours!', 'This is amazing.', 'Great composition.', 'Saved to my favourites.', 'The lighting here is perfect.',
  'How long did this take?', 'Beautiful work.', 'I keep coming back to this one.', 'Wallpaper material.',
  'The details are incredible.', 'Source?', 'This deserves more likes.', 'So calm and peaceful.', 'Nice palette.',
  'What brushes do you use?', 'Reminds me of my childhood.', 'Perfect.', 'Incredible atmosphere.', 'Nice!',
  'The background alone is worth it.', 'Would love to see a sequel.', 'Great use of negative space.',
  'Agreed!', 'Thanks for sharing.', 'Haha, exactly.', 'Same here.', 'Good point.', 'Underrated post.',
] as const;

export const BIO_LINES = [
  'Digital artist and coffee addict.', 'I draw things sometimes.', 'Collecting pretty pictures since forever.',
  'Landscape photographer on weekends.', 'Pixel art enthusiast.', 'Commissions closed for now.',
  'Just here for the cats.', 'Illustrator. Opinions are my own.', 'Learning to paint, one post at a time.',
  'Curating the best wallpapers.', 'Sci-fi and fantasy fan.', 'Night owl, watercolour lover.',
  'Retired graphic designer.', 'Student, aspiring concept artist.', 'I like robots and rainy days.',
] as const;

export const DESCRIPTION_LINES = [
  'Made this over the weekend.', 'A quick study, about two hours.', 'Experimenting with a new palette.',
  'Part of a series I am working on.', 'Inspired by an old photograph.', 'Painted from memory.',
  'Feedback welcome!', 'First try at this style.', 'Colour study.', 'Redrew an old piece of mine.',
  'Commission for a friend.', 'Daily sketch.', 'Found this in my archive.', 'Another one for the collection.',
] as const;
